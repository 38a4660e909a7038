import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestMeta } from './request-meta';
import { AppError } from './app-error';
import { readAuthToken, REFRESH_COOKIE, setSessionCookies } from './session-cookies';

/**
 * The caller's signed-in session. `FastifyRequest['auth']` is declared by modules/auth
 * (session-issuer.ts), which owns the session type; this file does not import the auth module, whose
 * route plugins import this one.
 */
type AuthenticatedSession = NonNullable<FastifyRequest['auth']>;

export function requestMeta(req: FastifyRequest): RequestMeta {
  return { requestId: req.id, ip: req.ip, userAgent: req.headers['user-agent'] };
}

/** Resolves the caller's session on every API request; routes then ask for what they need. */
export function installAuthHook(
  app: FastifyInstance,
  auth: { authenticate(token: string, meta: RequestMeta): Promise<AuthenticatedSession | null> },
  opts: { secureCookies: boolean },
): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/api/')) return;
    const found = readAuthToken(req);
    if (!found) return;
    const session = await auth.authenticate(found.token, requestMeta(req));
    req.auth = session;
    // Slide the one-hour cookies while the user is active.
    if (session?.touched && found.from === 'cookie') {
      setSessionCookies(
        reply,
        { authToken: found.token, refreshToken: req.cookies[REFRESH_COOKIE] },
        opts.secureCookies,
      );
    }
  });
}

/** Route prefixes whose caller is checked before anything else (body parsing, validation). */
export const ADMIN_AREA = '/api/admin/';
export const PROFESSIONAL_AREA = '/api/professional/';

/**
 * Who before what: admin and professional routes check the caller's role as soon as the route is
 * known (onRequest, before the body is read or validated), so a caller without the role gets the
 * same 404 from every one of them whatever they send, never a validation message. The handlers
 * still ask for the role themselves (requireAdmin, and the services for professionals).
 * Install after installAuthHook.
 */
export function installRoleGate(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    const route = req.routeOptions.url;
    if (!route) return;
    if (route.startsWith(ADMIN_AREA)) requireAdmin(req);
    else if (route.startsWith(PROFESSIONAL_AREA)) {
      const { user } = requireUser(req);
      if (user.role !== 'professional') throw new AppError('NOT_FOUND', 'Not found');
    }
  });
}

const CHOOSE_PASSWORD =
  'Choose a new password first: the password you signed in with could be used only once.';

/**
 * A signed-in user whose account is active. Pending or rejected professionals get 403 here:
 * they may only read who they are, manage their sessions and sign out (see requireSession). So does
 * an account signed in with a one-time password, except where it chooses its own (`passwordChange`).
 */
export function requireUser(
  req: FastifyRequest,
  opts: { passwordChange?: boolean } = {},
): AuthenticatedSession {
  const auth = requireSession(req);
  if (auth.user.accountStatus !== 'active') {
    throw new AppError('ACCOUNT_INACTIVE', 'Your account is waiting for verification by an administrator.');
  }
  if (auth.user.passwordChangeRequired && !opts.passwordChange)
    throw new AppError('PASSWORD_CHANGE_REQUIRED', CHOOSE_PASSWORD);
  return auth;
}

/** Any signed-in session, whatever the account's status (for /auth/me, sessions, logout). */
export function requireSession(req: FastifyRequest): AuthenticatedSession {
  if (!req.auth) throw new AppError('UNAUTHORIZED', 'Please sign in to continue.');
  return req.auth;
}

/** Admin-only routes look missing to everyone else (the 404 card). */
export function requireAdmin(req: FastifyRequest): AuthenticatedSession {
  const auth = req.auth;
  if (!auth || auth.user.role !== 'admin') throw new AppError('NOT_FOUND', 'Not found');
  if (auth.user.passwordChangeRequired) throw new AppError('PASSWORD_CHANGE_REQUIRED', CHOOSE_PASSWORD);
  return auth;
}
