import { createHmac } from 'node:crypto';
import { createChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { create } from 'altcha-lib/frameworks/fastify';
import type { CaptchaVerifier, SpentChallengeStore } from './captcha';

const CHALLENGE_TTL_MS = 10 * 60_000;

/**
 * ALTCHA proof-of-work: the browser spends a little CPU, nothing leaves the machine.
 * Solved challenges are recorded as spent in `spent` (the database), so one solution cannot be
 * replayed on this process or any other.
 */
export function createAltchaVerifier(
  secret: string,
  spent: SpentChallengeStore,
  opts: { cost?: number } = {},
): CaptchaVerifier {
  const derive = (label: string) => createHmac('sha256', secret).update(label).digest('hex');
  const hmacSignatureSecret = derive('altcha-signature');
  const hmacKeySignatureSecret = derive('altcha-key-signature');
  const baseCost = opts.cost ?? 1_000;
  // A challenge expires at most CHALLENGE_TTL_MS after it was made; it is kept as spent until then.
  const usedChallenges = {
    setIfAbsent: (challengeId: string) => spent.spend(challengeId, new Date(Date.now() + CHALLENGE_TTL_MS)),
    // altcha-lib uses setIfAbsent when there is one; these two are never called.
    get: () => {
      throw new Error('spent challenges are checked with setIfAbsent');
    },
    set: () => {
      throw new Error('spent challenges are recorded with setIfAbsent');
    },
  };
  // Only its payload-verification helper is used; routes are ours.
  const { verify } = create({
    deriveKey,
    hmacSignatureSecret,
    hmacKeySignatureSecret,
    store: usedChallenges,
  });
  return {
    provider: 'altcha',
    publicConfig: () => ({ provider: 'altcha', challengeUrl: '/api/auth/captcha/challenge' }),
    createChallenge: (challengeOpts) =>
      createChallenge({
        deriveKey,
        hmacSignatureSecret,
        hmacKeySignatureSecret,
        algorithm: 'PBKDF2/SHA-256',
        cost: baseCost * (challengeOpts?.hardness ?? 1),
        // Deterministic mode: the server knows the answer's key, so verifying is one derivation.
        counter: 1_000 + Math.floor(Math.random() * 5_000),
        expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
      }),
    async verify(token, _remoteIp, verifyOpts) {
      if (!token) return false;
      // The cost is inside the signed challenge parameters, so it cannot be lowered by the client.
      if (verifyOpts?.hardness && solvedCost(token) < baseCost * verifyOpts.hardness) return false;
      const result = await verify(
        token,
        deriveKey,
        hmacSignatureSecret,
        hmacKeySignatureSecret,
        usedChallenges,
      );
      return !result.error && result.verification?.verified === true;
    },
  };
}

/** The work factor of the challenge a payload answers (0 when unreadable; the signature is checked apart). */
function solvedCost(payload: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as {
      challenge?: { parameters?: { cost?: unknown } };
    };
    const cost = parsed.challenge?.parameters?.cost;
    return typeof cost === 'number' ? cost : 0;
  } catch {
    return 0;
  }
}
