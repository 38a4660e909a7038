import type { PublicConfig } from '@mi/contracts/auth';

/** The login page's captcha notice: says which captcha protects the form. */
export function CaptchaNotice({ provider }: { provider: PublicConfig['captcha']['provider'] }) {
  if (provider === 'recaptcha') {
    return (
      <p className="text-xs text-muted-foreground">
        This site is protected by reCAPTCHA and the Google{' '}
        <a className="underline" href="https://policies.google.com/privacy" target="_blank" rel="noreferrer">
          Privacy Policy
        </a>{' '}
        and{' '}
        <a className="underline" href="https://policies.google.com/terms" target="_blank" rel="noreferrer">
          Terms of Service
        </a>{' '}
        apply.
      </p>
    );
  }
  return (
    <p className="text-xs text-muted-foreground">
      This site is protected by a proof-of-work captcha (ALTCHA); no data leaves this server.
    </p>
  );
}
