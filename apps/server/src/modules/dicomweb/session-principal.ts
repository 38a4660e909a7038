import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/app-error';
import { requestMeta } from '../../http/auth-hook';
import { readAuthToken } from '../../http/session-cookies';
import type { AuthService } from '../auth/auth.service';
import type { Principal } from './dicomweb.service';

/** On the app's own origin, DICOMweb answers signed-in users (Bearer token or session cookie) for all their studies. */
export function sessionPrincipal(auth: Pick<AuthService, 'authenticate'>) {
  return async (req: FastifyRequest): Promise<Principal> => {
    const found = readAuthToken(req);
    const session = found ? await auth.authenticate(found.token, requestMeta(req)) : null;
    if (!session) throw new AppError('UNAUTHORIZED', 'Please sign in to continue.');
    if (session.user.accountStatus !== 'active')
      throw new AppError('ACCOUNT_INACTIVE', 'Your account is waiting for verification by an administrator.');
    return { userId: session.user.id, role: session.user.role, studyId: null, via: 'session' };
  };
}
