import type { CaptchaVerifier } from './captcha';

/** Google reCAPTCHA, used only when both keys are configured. */
export function createRecaptchaVerifier(keys: { siteKey: string; secretKey: string }): CaptchaVerifier {
  return {
    provider: 'recaptcha',
    publicConfig: () => ({ provider: 'recaptcha', siteKey: keys.siteKey }),
    async verify(token, remoteIp) {
      if (!token) return false;
      const body = new URLSearchParams({ secret: keys.secretKey, response: token, remoteip: remoteIp });
      try {
        const res = await fetch('https://www.google.com/recaptcha/api/siteverify', {
          method: 'POST',
          body,
          signal: AbortSignal.timeout(5_000),
        });
        const json = (await res.json()) as { success?: boolean };
        return json.success === true;
      } catch {
        return false;
      }
    },
  };
}
