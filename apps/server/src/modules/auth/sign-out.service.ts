import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { UserRow } from '../accounts';
import type { AuditRecorder } from '../audit';
import type { FreshProofRule } from './fresh-proof';
import type { SessionRow, SessionsRepository } from './sessions.repository';
import { sessionEndReason } from './sessions.service';
import { describeUserAgent } from './user-agent';

export interface SignOutDeps {
  sessions: Pick<
    SessionsRepository,
    'listUnrevokedForUser' | 'revokeForUser' | 'revokeAllForUser' | 'revoke'
  >;
  audit: AuditRecorder;
  sessionIdleMs: number;
  /** Signing out other devices needs a recent proof of identity (fresh-proof.ts). */
  requireFreshProof: FreshProofRule;
  now: () => Date;
}

/** A user's devices in Settings, and signing out: this device, another one, or all the others. */
export function createSignOutService(deps: SignOutDeps) {
  const { now } = deps;
  const expiryReason = (session: SessionRow, at: Date) => sessionEndReason(session, at, deps.sessionIdleMs);

  return {
    /** The user's live sessions for Settings, newest activity first; the caller's own is marked. */
    async listSessions(auth: { user: UserRow; session: SessionRow }) {
      const at = now();
      const rows = await deps.sessions.listUnrevokedForUser(auth.user.id);
      return rows
        .filter((row) => !expiryReason(row, at))
        .map((row) => ({
          id: row.id,
          device: describeUserAgent(row.userAgent),
          ip: row.ip,
          createdAt: row.createdAt.toISOString(),
          lastSeenAt: row.lastSeenAt.toISOString(),
          current: row.id === auth.session.id,
        }));
    },

    /**
     * Ends one of the user's own sessions; anyone else's id is "not found". Signing out another
     * device needs a recent proof of identity (this one's is a sign-out, which needs none).
     */
    async revokeSession(
      auth: { user: UserRow; session: SessionRow },
      sessionId: string,
      meta: RequestMeta,
    ): Promise<void> {
      if (sessionId !== auth.session.id) await deps.requireFreshProof(auth, 'auth.session_revoked', meta);
      const done =
        /^[0-9a-f-]{36}$/i.test(sessionId) &&
        (await deps.sessions.revokeForUser(auth.user.id, sessionId, 'revoked_by_user', now()));
      await deps.audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'auth.session_revoked',
        outcome: done ? 'success' : 'failure',
        targetType: 'session',
        targetId: sessionId.slice(0, 64),
        requestId: meta.requestId,
        ip: meta.ip,
      });
      if (!done) throw new AppError('NOT_FOUND', 'Session not found');
    },

    /** Ends every other session of the user (Settings "sign out other devices"); needs a recent proof. */
    async revokeOtherSessions(
      auth: { user: UserRow; session: SessionRow },
      meta: RequestMeta,
    ): Promise<number> {
      await deps.requireFreshProof(auth, 'auth.session_revoked', meta);
      const n = await deps.sessions.revokeAllForUser(auth.user.id, 'revoked_by_user', {
        exceptId: auth.session.id,
        at: now(),
      });
      await deps.audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'auth.session_revoked',
        outcome: 'success',
        targetType: 'user',
        targetId: auth.user.id,
        requestId: meta.requestId,
        ip: meta.ip,
        details: { scope: 'others', count: n },
      });
      return n;
    },

    async logout(auth: { user: UserRow; session: SessionRow }, meta: RequestMeta): Promise<void> {
      await deps.sessions.revoke(auth.session.id, 'logout', now());
      await deps.audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'auth.logout',
        outcome: 'success',
        targetType: 'session',
        targetId: auth.session.id,
        requestId: meta.requestId,
        ip: meta.ip,
      });
    },
  };
}
export type SignOutService = ReturnType<typeof createSignOutService>;
