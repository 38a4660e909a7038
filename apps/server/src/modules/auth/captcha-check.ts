import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { CaptchaVerifier } from '../../ports/captcha/captcha';
import type { AuditRecorder } from '../audit';

/** The refusal names the captcha in use: reCAPTCHA's is the spec's text (docs/spec-deviations.md). */
export const CAPTCHA_MESSAGE = {
  recaptcha: 'reCAPTCHA verification failed. Please try again.',
  altcha: 'Captcha verification failed. Please try again.',
} as const;

/** Registration and sign-in both start with a solved captcha; a refusal is audited as denied. */
export function createCaptchaCheck(deps: { captcha: CaptchaVerifier; audit: AuditRecorder }) {
  return async function requireCaptcha(
    token: string | undefined,
    meta: RequestMeta,
    action: string,
    hardness?: number,
  ) {
    if (await deps.captcha.verify(token, meta.ip, { hardness })) return;
    await deps.audit({
      action,
      outcome: 'denied',
      requestId: meta.requestId,
      ip: meta.ip,
      details: { reason: 'captcha' },
    });
    throw new AppError('CAPTCHA_FAILED', CAPTCHA_MESSAGE[deps.captcha.provider]);
  };
}
export type RequireCaptcha = ReturnType<typeof createCaptchaCheck>;
