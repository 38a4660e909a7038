import type { PublicConfig } from '@mi/contracts/auth';

/** Verifies that a human-ish client solved a challenge before sign-in or registration. */
export interface CaptchaVerifier {
  readonly provider: 'altcha' | 'recaptcha';
  /** What the SPA needs to render the widget. */
  publicConfig(): PublicConfig['captcha'];
  /** A new challenge for the ALTCHA widget; reCAPTCHA has none of ours. */
  createChallenge?(): Promise<unknown>;
  verify(token: string | undefined, remoteIp: string): Promise<boolean>;
}
