import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/app-error';
import { requestMeta } from '../../http/auth-hook';
import { readAuthToken } from '../../http/session-cookies';
import type { AuthService } from '../auth';
import type { Principal } from './dicomweb.service';

/**
 * A kind of bearer credential that is not a sign-in (an external AI vendor's, modules/vendors; a
 * study link's, modules/links), told apart by its prefix and resolved to its principal, or null.
 */
export interface BearerCredentials {
  isToken(token: string): boolean;
  principalForToken(token: string, meta: ReturnType<typeof requestMeta>): Promise<Principal | null>;
}

/**
 * On the app's own origin, DICOMweb (and /fhir/R4) answer signed-in users (Bearer token or session
 * cookie) for all their studies, and the other bearer credentials for what each opens (the access
 * rule decides what each may read).
 */
export function sessionPrincipal(
  auth: Pick<AuthService, 'authenticate'>,
  ...credentials: BearerCredentials[]
) {
  return async (req: FastifyRequest): Promise<Principal> => {
    const found = readAuthToken(req);
    const kind = found?.from === 'bearer' ? credentials.find((c) => c.isToken(found.token)) : undefined;
    if (found && kind) {
      const other = await kind.principalForToken(found.token, requestMeta(req));
      if (!other) throw new AppError('UNAUTHORIZED', 'This credential is not valid or has ended.');
      return other;
    }
    const session = found ? await auth.authenticate(found.token, requestMeta(req)) : null;
    if (!session) throw new AppError('UNAUTHORIZED', 'Please sign in to continue.');
    if (session.user.accountStatus !== 'active')
      throw new AppError('ACCOUNT_INACTIVE', 'Your account is waiting for verification by an administrator.');
    return { userId: session.user.id, role: session.user.role, studyId: null, via: 'session' };
  };
}
