import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long an upload credential is valid. */
export const UPLOAD_TOKEN_TTL_MS = 60 * 60 * 1000;
const PREFIX = 'mi-upload.';

export interface UploadTokenClaims {
  userId: string;
  /** The sign-in session it was issued to; the credential ends when that session is revoked. */
  sessionId: string | null;
  expiresAt: Date;
}

/**
 * Short-lived upload credentials (the answer of GET /api/storage/token): HMAC-signed, bound to one
 * user, and signed with a key derived for this purpose only, so a credential can never pass as a
 * session token or the other way round.
 */
export function createUploadTokens(sessionSecret: string, now: () => Date = () => new Date()) {
  const key = createHmac('sha256', sessionSecret).update('upload-credential/v1').digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

  return {
    issue(userId: string, sessionId: string): { token: string; expiresAt: Date } {
      const expiresAt = new Date(now().getTime() + UPLOAD_TOKEN_TTL_MS);
      const payload = Buffer.from(
        JSON.stringify({
          sub: userId,
          sid: sessionId,
          exp: Math.floor(expiresAt.getTime() / 1000),
          n: randomBytes(9).toString('base64url'),
        }),
      ).toString('base64url');
      return { token: `${PREFIX}${payload}.${sign(payload)}`, expiresAt };
    },
    /** The claims of a valid, unexpired credential; null for anything else. */
    verify(token: string | undefined): UploadTokenClaims | null {
      if (!token?.startsWith(PREFIX)) return null;
      const [payload, signature, extra] = token.slice(PREFIX.length).split('.');
      if (!payload || !signature || extra !== undefined) return null;
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      let claims: { sub?: unknown; sid?: unknown; exp?: unknown };
      try {
        claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
      } catch {
        return null;
      }
      if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number') return null;
      const expiresAt = new Date(claims.exp * 1000);
      if (expiresAt.getTime() <= now().getTime()) return null;
      return { userId: claims.sub, sessionId: typeof claims.sid === 'string' ? claims.sid : null, expiresAt };
    },
  };
}
export type UploadTokens = ReturnType<typeof createUploadTokens>;
