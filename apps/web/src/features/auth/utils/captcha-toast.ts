import type { PublicConfig } from '@mi/contracts/auth';
import { toast } from '@/hooks/use-toast';

/**
 * Shown when no captcha token exists or the server rejects it: the 'reCAPTCHA Error' toast with
 * reCAPTCHA, named plainly with the ALTCHA proof of work (docs/spec-deviations.md).
 */
export function toastCaptchaError(provider: PublicConfig['captcha']['provider'] | undefined): void {
  const name = provider === 'recaptcha' ? 'reCAPTCHA' : 'Captcha';
  toast({
    title: `${name} Error`,
    description: `${name} verification failed. Please try again.`,
    variant: 'destructive',
  });
}
