import type { Config } from '../../config';
import { createAltchaVerifier } from './altcha-verifier';
import type { CaptchaVerifier, SpentChallengeStore } from './captcha';
import { createRecaptchaVerifier } from './recaptcha-verifier';

export function createCaptchaVerifier(
  config: Pick<Config, 'recaptcha' | 'sessionSecret' | 'altchaCost'>,
  spent: SpentChallengeStore,
): CaptchaVerifier {
  return config.recaptcha
    ? createRecaptchaVerifier(config.recaptcha)
    : createAltchaVerifier(config.sessionSecret, spent, { cost: config.altchaCost });
}
