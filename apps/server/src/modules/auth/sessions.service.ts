import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { UsersRepository } from '../accounts';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession, IssuedSession } from './session-issuer';
import type { SessionRow, SessionsRepository } from './sessions.repository';
import { hashToken, newToken } from './tokens';

// Session activity is written at most once a minute (or a quarter of the idle timeout if that
// is shorter), so every request is not a write.
const TOUCH_EVERY_MS = 60_000;
/** A refresh token presented again within this of its exchange is taken for two tabs racing. */
const REFRESH_REUSE_GRACE_MS = 10_000;

/** Why a session has ended by `at` (too old, or idle too long), or null while it is live. */
export function sessionEndReason(session: SessionRow, at: Date, idleMs: number): string | null {
  if (session.expiresAt.getTime() <= at.getTime()) return 'expired';
  if (session.lastSeenAt.getTime() + idleMs <= at.getTime()) return 'idle';
  return null;
}

export interface SessionsDeps {
  users: Pick<UsersRepository, 'findById'>;
  sessions: SessionsRepository;
  audit: AuditRecorder;
  sessionIdleMs: number;
  now: () => Date;
}

/**
 * A refresh token presented again after it was exchanged was copied: its session, and every token
 * descended from it, are revoked (within a few seconds it is two tabs racing, and only fails).
 */
async function revokeOnReuse(deps: SessionsDeps, oldHash: string, at: Date, meta: RequestMeta) {
  const rotated = await deps.sessions.findRotated(oldHash);
  if (rotated && at.getTime() - rotated.rotatedAt.getTime() > REFRESH_REUSE_GRACE_MS) {
    await deps.sessions.revoke(rotated.sessionId, 'refresh_token_reuse', at);
    await deps.audit({
      action: 'auth.refresh_reuse',
      outcome: 'denied',
      targetType: 'session',
      targetId: rotated.sessionId,
      requestId: meta.requestId,
      ip: meta.ip,
    });
  }
}

/** Server-side sessions once signed in: each request's check and the refresh of its tokens. */
export function createSessionsService(deps: SessionsDeps) {
  const { now } = deps;
  const touchEveryMs = Math.min(TOUCH_EVERY_MS, deps.sessionIdleMs / 4);

  const expiryReason = (session: SessionRow, at: Date) => sessionEndReason(session, at, deps.sessionIdleMs);

  return {
    /** Resolves an auth token to its live session, ending sessions that are idle or too old. */
    async authenticate(authToken: string, meta: RequestMeta): Promise<AuthenticatedSession | null> {
      const hash = hashToken(authToken);
      let found = await deps.sessions.findActiveByAuthHash(hash);
      if (!found) return null;
      const at = now();
      let reason = expiryReason(found.session, at);
      if (reason) {
        // A cached row may predate activity another process has recorded: decide on the stored one.
        found = await deps.sessions.findActiveByAuthHash(hash, { fresh: true });
        if (!found) return null;
        reason = expiryReason(found.session, at);
      }
      if (reason) {
        await deps.sessions.revoke(found.session.id, reason, at);
        await deps.audit({
          actorId: found.user.id,
          actorRole: found.user.role,
          action: 'auth.session_expired',
          outcome: 'success',
          targetType: 'session',
          targetId: found.session.id,
          requestId: meta.requestId,
          ip: meta.ip,
          details: { reason },
        });
        return null;
      }
      const touched = at.getTime() - found.session.lastSeenAt.getTime() >= touchEveryMs;
      if (touched) await deps.sessions.touch(found.session.id, at);
      return { user: found.user, session: found.session, touched };
    },

    /** Whether credentials issued by this session (viewer grants, upload tokens) may still be used. */
    isSessionUnrevoked(sessionId: string): Promise<boolean> {
      return deps.sessions.isUnrevoked(sessionId);
    },

    /**
     * Rotates both tokens. A refresh token works once. One presented again after it was exchanged
     * was copied: the session and every token descended from it are revoked (two tabs refreshing at
     * the same moment are a race, not a theft, so a reuse within a few seconds only fails).
     */
    async refresh(refreshToken: string, meta: RequestMeta): Promise<IssuedSession> {
      const oldHash = hashToken(refreshToken);
      const session = await deps.sessions.findActiveByRefreshHash(oldHash);
      const at = now();
      if (!session) await revokeOnReuse(deps, oldHash, at, meta);
      const user = session ? await deps.users.findById(session.userId) : undefined;
      if (!session || !user || expiryReason(session, at)) {
        if (session) await deps.sessions.revoke(session.id, 'expired', at);
        await deps.audit({
          action: 'auth.refresh',
          outcome: 'failure',
          requestId: meta.requestId,
          ip: meta.ip,
        });
        throw new AppError('UNAUTHORIZED', 'Your session has ended. Please sign in again.');
      }
      const authToken = newToken();
      const nextRefresh = newToken();
      const rotated = await deps.sessions.rotate(session.id, oldHash, {
        authTokenHash: hashToken(authToken),
        refreshTokenHash: hashToken(nextRefresh),
        at,
      });
      if (!rotated) throw new AppError('UNAUTHORIZED', 'Your session has ended. Please sign in again.');
      await deps.audit({
        actorId: user.id,
        actorRole: user.role,
        action: 'auth.refresh',
        outcome: 'success',
        targetType: 'session',
        targetId: session.id,
        requestId: meta.requestId,
        ip: meta.ip,
      });
      return { user, session, authToken, refreshToken: nextRefresh };
    },
  };
}
export type SessionsService = ReturnType<typeof createSessionsService>;
