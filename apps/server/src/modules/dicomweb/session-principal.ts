import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/app-error';
import { requestMeta } from '../../http/auth-hook';
import { readAuthToken } from '../../http/session-cookies';
import type { Services } from '../../services';
import type { Principal } from './dicomweb.service';

/** On the app's own origin, DICOMweb answers signed-in users (Bearer token or session cookie) for all their studies. */
export function sessionPrincipal(services: Services) {
  return async (req: FastifyRequest): Promise<Principal> => {
    const found = readAuthToken(req);
    const auth = found ? await services.auth.authenticate(found.token, requestMeta(req)) : null;
    if (!auth) throw new AppError('UNAUTHORIZED', 'Please sign in to continue.');
    if (auth.user.accountStatus !== 'active')
      throw new AppError('ACCOUNT_INACTIVE', 'Your account is waiting for verification by an administrator.');
    return { userId: auth.user.id, role: auth.user.role, studyId: null, via: 'session' };
  };
}
