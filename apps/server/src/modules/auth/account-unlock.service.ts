import { normalizeEmail } from '@mi/contracts/rules';
import type { RequestMeta } from '../../http/request-meta';
import type { CaptchaVerifier } from '../../ports/captcha/captcha';
import type { SignInProtection } from './sign-in-protection';

export interface AccountUnlockDeps {
  captcha: CaptchaVerifier;
  signInProtection: Pick<SignInProtection, 'captchaHardness' | 'deviceToken' | 'unlock'>;
}

/**
 * An account under repeated failed sign-ins (sign-in-protection.ts): a harder captcha for it, the
 * known-device token that lets its owner's browser through, and the emailed unlock link.
 */
export function createAccountUnlockService(deps: AccountUnlockDeps) {
  return {
    /** A captcha challenge for a sign-in as this email: harder while it keeps failing. */
    async captchaChallenge(email: string | undefined): Promise<unknown> {
      if (!deps.captcha.createChallenge) return null;
      const hardness = await deps.signInProtection.captchaHardness(email ? normalizeEmail(email) : undefined);
      return deps.captcha.createChallenge({ hardness });
    },

    /** The known-device token for a browser that just signed in as this user. */
    knownDeviceToken(userId: string): string {
      return deps.signInProtection.deviceToken(userId);
    },

    /** Uses an emailed unlock link: the known-device token for the browser that opened it, or null. */
    unlock(token: string, meta: RequestMeta): Promise<string | null> {
      return deps.signInProtection.unlock(token, meta);
    },
  };
}
export type AccountUnlockService = ReturnType<typeof createAccountUnlockService>;
