import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { UserRow } from '../accounts';
import type { SessionRow, SessionsRepository } from './sessions.repository';
import type { RequestMeta } from '../../http/request-meta';
import { hashToken, newToken } from './tokens';

/** A request's signed-in session (auth.service.ts `authenticate`). */
export interface AuthenticatedSession {
  user: UserRow;
  session: SessionRow;
  /** True when lastSeenAt was just moved forward (the caller re-sends the cookies then). */
  touched: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every API request by http/auth-hook.ts. */
    auth: AuthenticatedSession | null;
  }
}

export interface IssuedSession {
  user: UserRow;
  session: SessionRow;
  authToken: string;
  refreshToken: string;
}

/** Creates a server-side session once every factor has been given, and records the sign-in. */
export function createSessionIssuer(deps: {
  sessions: SessionsRepository;
  audit: AuditRecorder;
  sessionMaxMs: number;
  now: () => Date;
}) {
  return async function issueSession(
    user: UserRow,
    meta: RequestMeta,
    method: string,
  ): Promise<IssuedSession> {
    // Whatever the path (a second factor finished after an admin disabled the account, say).
    if (user.accountStatus === 'disabled')
      throw new AppError('ACCOUNT_DISABLED', 'This account has been disabled. Please contact support.');
    const authToken = newToken();
    const refreshToken = newToken();
    const at = deps.now();
    const session = await deps.sessions.insert({
      userId: user.id,
      authTokenHash: hashToken(authToken),
      refreshTokenHash: hashToken(refreshToken),
      userAgent: meta.userAgent?.slice(0, 300) ?? null,
      ip: meta.ip,
      createdAt: at,
      lastSeenAt: at,
      expiresAt: new Date(at.getTime() + deps.sessionMaxMs),
    });
    await deps.audit({
      actorId: user.id,
      actorRole: user.role,
      action: 'auth.login',
      outcome: 'success',
      targetType: 'session',
      targetId: session.id,
      requestId: meta.requestId,
      ip: meta.ip,
      details: { method },
    });
    return { user, session, authToken, refreshToken };
  };
}
export type IssueSession = ReturnType<typeof createSessionIssuer>;
