import { SECURITY_REAUTH_WINDOW_MINUTES } from '@mi/contracts/auth';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from './session-issuer';
import type { RequestMeta } from '../../http/request-meta';

export const FRESH_PROOF_WINDOW_MS = SECURITY_REAUTH_WINDOW_MINUTES * 60_000;
export const FRESH_PROOF_MESSAGE = `For your security, please confirm it is you (your password, a code or Google) to change this. Security settings need a confirmation from the last ${SECURITY_REAUTH_WINDOW_MINUTES} minutes.`;

/** When the session's latest proof of identity was given: its sign-in, or a later re-authentication. */
export function latestProofAt(session: AuthenticatedSession['session']): Date {
  const re = session.reauthenticatedAt;
  return re && re > session.createdAt ? re : session.createdAt;
}

/**
 * The rule every security setting passes (the admin console's recent-sign-in rule,
 * modules/admin/recent-sign-in.ts, with a shorter window and one more way to renew it): the
 * session's sign-in or its latest re-authentication (POST /api/auth/reauthenticate) must be from the
 * last few minutes, else 403 REAUTH_REQUIRED (audited), which the app answers by asking for a proof.
 */
export function createFreshProofRule(deps: { audit: AuditRecorder; now: () => Date }) {
  return async function requireFreshProof(
    auth: Pick<AuthenticatedSession, 'user' | 'session'>,
    action: string,
    meta: RequestMeta,
  ): Promise<void> {
    if (deps.now().getTime() - latestProofAt(auth.session).getTime() <= FRESH_PROOF_WINDOW_MS) return;
    await deps.audit({
      actorId: auth.user.id,
      actorRole: auth.user.role,
      action,
      outcome: 'denied',
      targetType: 'user',
      targetId: auth.user.id,
      requestId: meta.requestId,
      ip: meta.ip,
      details: { reason: 'reauthentication_required' },
    });
    throw new AppError('REAUTH_REQUIRED', FRESH_PROOF_MESSAGE);
  };
}
export type FreshProofRule = ReturnType<typeof createFreshProofRule>;
