import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/app-error';
import { requestMeta } from '../../http/auth-hook';
import { readAuthToken } from '../../http/session-cookies';
import type { AuthService } from '../auth';
import type { Principal } from './dicomweb.service';

/** Resolves an external AI vendor's DICOMweb token (modules/vendors) to its principal, or null. */
export interface VendorCredentials {
  isVendorToken(token: string): boolean;
  principalForToken(token: string, meta: ReturnType<typeof requestMeta>): Promise<Principal | null>;
}

/**
 * On the app's own origin, DICOMweb answers signed-in users (Bearer token or session cookie) for all
 * their studies, and an external AI vendor's bearer credential for its one study (the access rule
 * decides what each may read).
 */
export function sessionPrincipal(auth: Pick<AuthService, 'authenticate'>, vendors?: VendorCredentials) {
  return async (req: FastifyRequest): Promise<Principal> => {
    const found = readAuthToken(req);
    if (found?.from === 'bearer' && vendors?.isVendorToken(found.token)) {
      const vendor = await vendors.principalForToken(found.token, requestMeta(req));
      if (!vendor) throw new AppError('UNAUTHORIZED', 'This credential is not valid or has ended.');
      return vendor;
    }
    const session = found ? await auth.authenticate(found.token, requestMeta(req)) : null;
    if (!session) throw new AppError('UNAUTHORIZED', 'Please sign in to continue.');
    if (session.user.accountStatus !== 'active')
      throw new AppError('ACCOUNT_INACTIVE', 'Your account is waiting for verification by an administrator.');
    return { userId: session.user.id, role: session.user.role, studyId: null, via: 'session' };
  };
}
