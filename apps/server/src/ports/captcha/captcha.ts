import type { PublicConfig } from '@mi/contracts/auth';

/** Verifies that a human-ish client solved a challenge before sign-in or registration. */
export interface CaptchaVerifier {
  readonly provider: 'altcha' | 'recaptcha';
  /** What the SPA needs to render the widget. */
  publicConfig(): PublicConfig['captcha'];
  /** A new challenge for the ALTCHA widget; reCAPTCHA has none of ours. */
  /** `hardness`: how many times the ordinary work the challenge asks for (1 when not given). */
  createChallenge?(opts?: { hardness?: number }): Promise<unknown>;
  /** `hardness`: the solved challenge must have been at least this many times the ordinary work (ALTCHA only). */
  verify(token: string | undefined, remoteIp: string, opts?: { hardness?: number }): Promise<boolean>;
}

/**
 * Where solved challenges are recorded as spent, shared by every API process (the database, see
 * modules/rate-limit): a solution is accepted once, whichever process sees it.
 */
export interface SpentChallengeStore {
  /** Records the challenge as spent until `expiresAt`; false when it already was. */
  spend(challengeId: string, expiresAt: Date): Promise<boolean>;
}
