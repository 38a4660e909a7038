import { createRemoteJWKSet, jwtVerify } from 'jose';

export interface GoogleIdentity {
  sub: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** When Google issued the token (its `iat`): a sign-in is only as fresh as this. */
  issuedAt: Date;
}

const GOOGLE_ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];

/**
 * Verifies Google ID tokens: signature against Google's published keys (JWKS, cached and
 * refreshed by jose), issuer, audience (our client id) and expiry. Throws on any failure.
 */
export function createGoogleVerifier(opts: { clientId: string; jwksUrl: string; now?: () => Date }) {
  const jwks = createRemoteJWKSet(new URL(opts.jwksUrl), {
    timeoutDuration: 5_000,
    cooldownDuration: 30_000,
  });
  return async function verifyGoogleToken(credential: string): Promise<GoogleIdentity> {
    const { payload } = await jwtVerify(credential, jwks, {
      issuer: GOOGLE_ISSUERS,
      audience: opts.clientId,
      algorithms: ['RS256'],
      requiredClaims: ['sub', 'exp', 'iat'],
      currentDate: opts.now?.(),
    });
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw new Error('token has no subject');
    const email = typeof payload.email === 'string' ? payload.email : null;
    // Google sends a boolean; some older tokens carried the string "true".
    const verified = payload.email_verified === true || payload.email_verified === 'true';
    return {
      sub: payload.sub,
      email,
      emailVerified: email !== null && verified,
      name: typeof payload.name === 'string' ? payload.name : null,
      issuedAt: new Date((payload.iat ?? 0) * 1000),
    };
  };
}
export type GoogleVerifier = ReturnType<typeof createGoogleVerifier>;
