import { REAUTH_WINDOW_MINUTES } from '@mi/contracts/admin';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';

const REAUTH_WINDOW_MS = REAUTH_WINDOW_MINUTES * 60_000;
export const REAUTH_MESSAGE = `For your security, please sign in again to continue (admin actions need a sign-in from the last ${REAUTH_WINDOW_MINUTES} minutes).`;

/**
 * The rule every admin change passes, whichever module makes it (accounts, providers, help
 * articles, the catalogue): the admin's session must be from the last few minutes, else 403
 * REAUTH_REQUIRED, which the console answers by asking for the password (and the second factor).
 */
export function createRecentSignInRule(deps: { audit: AuditRecorder; now: () => Date }) {
  return async function requireRecentSignIn(
    admin: AuthenticatedSession,
    action: string,
    meta: RequestMeta,
  ): Promise<void> {
    if (deps.now().getTime() - admin.session.createdAt.getTime() <= REAUTH_WINDOW_MS) return;
    await deps.audit({
      actorId: admin.user.id,
      actorRole: admin.user.role,
      action,
      outcome: 'denied',
      requestId: meta.requestId,
      ip: meta.ip,
      details: { reason: 'reauthentication_required' },
    });
    throw new AppError('REAUTH_REQUIRED', REAUTH_MESSAGE);
  };
}
export type RecentSignInRule = ReturnType<typeof createRecentSignInRule>;
