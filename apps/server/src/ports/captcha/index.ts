import type { Config } from '../../config';
import { createAltchaVerifier } from './altcha-verifier';
import type { CaptchaVerifier } from './captcha';
import { createRecaptchaVerifier } from './recaptcha-verifier';

export function createCaptchaVerifier(
  config: Pick<Config, 'recaptcha' | 'sessionSecret' | 'altchaCost'>,
): CaptchaVerifier {
  return config.recaptcha
    ? createRecaptchaVerifier(config.recaptcha)
    : createAltchaVerifier(config.sessionSecret, { cost: config.altchaCost });
}
