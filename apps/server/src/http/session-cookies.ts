import type { FastifyReply, FastifyRequest } from 'fastify';

export const AUTH_COOKIE = 'authToken';
export const REFRESH_COOKIE = 'refreshToken';
/** Both session cookies last one hour and slide while the user is active. */
const COOKIE_MAX_AGE_S = 3600;

export function setSessionCookies(
  reply: FastifyReply,
  tokens: { authToken: string; refreshToken?: string },
  secure: boolean,
) {
  const base = { path: '/', httpOnly: true, sameSite: 'strict' as const, secure, maxAge: COOKIE_MAX_AGE_S };
  reply.setCookie(AUTH_COOKIE, tokens.authToken, base);
  if (tokens.refreshToken) reply.setCookie(REFRESH_COOKIE, tokens.refreshToken, base);
}

export function clearSessionCookies(reply: FastifyReply, secure: boolean) {
  const base = { path: '/', httpOnly: true, sameSite: 'strict' as const, secure };
  reply.clearCookie(AUTH_COOKIE, base);
  reply.clearCookie(REFRESH_COOKIE, base);
}

/** The bearer token wins over the cookie, so API clients never depend on cookies. */
export function readAuthToken(req: FastifyRequest): { token: string; from: 'bearer' | 'cookie' } | null {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) {
    const token = header.slice(7).trim();
    if (token) return { token, from: 'bearer' };
  }
  const cookie = req.cookies[AUTH_COOKIE];
  return cookie ? { token: cookie, from: 'cookie' } : null;
}

/** The pending-login token between a correct password and the second factor (read by /api/mfa/*). */
export const MFA_PENDING_COOKIE = 'mfaPending';
const MFA_PENDING_PATH = '/api/mfa';

export function setMfaPendingCookie(
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
  secure: boolean,
) {
  reply.setCookie(MFA_PENDING_COOKIE, token, {
    path: MFA_PENDING_PATH,
    httpOnly: true,
    sameSite: 'strict',
    secure,
    maxAge: maxAgeSeconds,
  });
}

export function clearMfaPendingCookie(reply: FastifyReply, secure: boolean) {
  reply.clearCookie(MFA_PENDING_COOKIE, {
    path: MFA_PENDING_PATH,
    httpOnly: true,
    sameSite: 'strict',
    secure,
  });
}

/** Marks a browser the user signed in from (see sign-in-protection.ts); read only by sign-in. */
export const KNOWN_DEVICE_COOKIE = 'knownDevice';
const KNOWN_DEVICE_MAX_AGE_S = 180 * 24 * 3600;

export function setKnownDeviceCookie(reply: FastifyReply, token: string, secure: boolean) {
  reply.setCookie(KNOWN_DEVICE_COOKIE, token, {
    path: '/api/auth',
    httpOnly: true,
    sameSite: 'strict',
    secure,
    maxAge: KNOWN_DEVICE_MAX_AGE_S,
  });
}
