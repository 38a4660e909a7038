import type { PublicConfig } from '@mi/contracts/auth';
import { Loader2 } from 'lucide-react';
import type { Ref } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { CaptchaField, type CaptchaHandle } from './captcha-field';
import { CaptchaNotice } from './captcha-notice';

/**
 * The end of both registration forms: the captcha, the Register button, the captcha provider's
 * notice and the way back to sign-in.
 */
export function RegistrationSubmit({
  config,
  captchaRef,
  submitting,
  loginHref,
}: {
  config: PublicConfig | undefined;
  captchaRef: Ref<CaptchaHandle>;
  submitting: boolean;
  loginHref: string;
}) {
  return (
    <>
      <CaptchaField captcha={config?.captcha} action="register" ref={captchaRef} />

      <Button type="submit" className="w-full" disabled={submitting} aria-busy={submitting || undefined}>
        {submitting && <Loader2 className="animate-spin" aria-hidden="true" />}
        Register
      </Button>

      {config && <CaptchaNotice provider={config.captcha.provider} />}

      <p className="text-center text-sm">
        Already have an account?{' '}
        <Link to={loginHref} className="font-medium text-primary hover:underline">
          Back to Login
        </Link>
      </p>
    </>
  );
}
