import { zodResolver } from '@hookform/resolvers/zod';
import { loginBodySchema, type PublicConfig } from '@mi/contracts/auth';
import { AlertCircle, Loader2, Share2 } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useLocation } from 'react-router';
import type { z } from 'zod';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { paths, withQuery } from '@/config/paths';
import { toastError } from '@/hooks/use-toast';
import { errorMessage, isApiError } from '@/lib/api-client';
import { useLogin } from '../api/login';
import { useCompleteSignIn } from '../hooks/use-complete-sign-in';
import { toastCaptchaError } from '../utils/captcha-toast';
import { carrySearch, sharedStudyInvite } from '../utils/post-sign-in-target';
import { CaptchaField, type CaptchaHandle } from './captcha-field';
import { CaptchaNotice } from './captcha-notice';

const loginFormSchema = loginBodySchema.pick({ email: true, password: true });
type LoginValues = z.infer<typeof loginFormSchema>;

/**
 * Email + password sign-in on the login page. On success the session cookies are set by the
 * server; refetching /api/auth/me flips the app to signed-in and the router takes the user on.
 */
export function LoginForm({ config }: { config: PublicConfig | undefined }) {
  const id = useId();
  const location = useLocation();
  const login = useLogin();
  const completeSignIn = useCompleteSignIn();
  const captchaRef = useRef<CaptchaHandle>(null);
  const [invalidCredentials, setInvalidCredentials] = useState(false);
  const invite = sharedStudyInvite(location.search);
  const {
    register,
    handleSubmit,
    watch,
    formState: { errors, isSubmitting },
  } = useForm<LoginValues>({
    resolver: zodResolver(loginFormSchema),
    defaultValues: { email: invite?.email ?? '', password: '' },
  });

  const onSubmit = async (values: LoginValues) => {
    setInvalidCredentials(false);
    const captcha = (await captchaRef.current?.getToken()) ?? null;
    if (!captcha) {
      toastCaptchaError(config?.captcha.provider);
      return;
    }
    try {
      let res;
      try {
        res = await login.mutateAsync({ ...values, captcha });
      } catch (err) {
        if (!isApiError(err, 'CAPTCHA_FAILED')) throw err;
        // After repeated failures the server asks more work for this email: solve once more and retry.
        captchaRef.current?.reset();
        const harder = (await captchaRef.current?.getToken()) ?? null;
        if (!harder) throw err;
        res = await login.mutateAsync({ ...values, captcha: harder });
      }
      if (!(await completeSignIn(res))) captchaRef.current?.reset();
    } catch (err) {
      captchaRef.current?.reset();
      if (isApiError(err, 'INVALID_CREDENTIALS')) setInvalidCredentials(true);
      else if (isApiError(err, 'CAPTCHA_FAILED')) toastCaptchaError(config?.captcha.provider);
      else toastError(errorMessage(err));
    }
  };

  const search = carrySearch(location.search);
  // The registration pages fill in the address a share was sent to, handed over out of the URL.
  const handOver = invite?.email ? { email: invite.email } : undefined;
  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="grid gap-4" aria-label="Sign in">
      {invite && (
        <Alert>
          <Share2 aria-hidden="true" />
          <AlertDescription>
            A study has been shared with you
            {invite.email ? (
              <>
                {' '}
                at <strong className="break-all">{invite.email}</strong>
              </>
            ) : null}
            . Sign in, or register below with that address, to see it in Shared Studies.
          </AlertDescription>
        </Alert>
      )}
      {invalidCredentials && (
        <Alert variant="destructive" role="alert">
          <AlertCircle aria-hidden="true" />
          <AlertDescription>Invalid email or password. Please try again.</AlertDescription>
        </Alert>
      )}
      <div className="grid gap-2">
        <Label htmlFor={`${id}-email`}>Email</Label>
        <Input
          id={`${id}-email`}
          type="email"
          autoComplete="email"
          inputMode="email"
          aria-invalid={errors.email ? true : undefined}
          aria-describedby={errors.email ? `${id}-email-error` : undefined}
          {...register('email')}
        />
        <FieldError id={`${id}-email-error`} message={errors.email?.message} />
      </div>
      <div className="grid gap-2">
        <div className="flex items-center justify-between">
          <Label htmlFor={`${id}-password`}>Password</Label>
          <Link
            to={paths.forgotPassword}
            className="rounded-sm text-sm font-medium text-primary hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
          >
            Forgot password?
          </Link>
        </div>
        <PasswordInput
          id={`${id}-password`}
          autoComplete="current-password"
          aria-invalid={errors.password ? true : undefined}
          aria-describedby={errors.password ? `${id}-password-error` : undefined}
          {...register('password')}
        />
        <FieldError id={`${id}-password-error`} message={errors.password?.message} />
      </div>

      <CaptchaField captcha={config?.captcha} action="login" email={watch('email')} ref={captchaRef} />

      <Button type="submit" className="w-full" disabled={isSubmitting} aria-busy={isSubmitting || undefined}>
        {isSubmitting && <Loader2 className="animate-spin" aria-hidden="true" />}
        Sign In
      </Button>

      {config && <CaptchaNotice provider={config.captcha.provider} />}

      <div className="grid gap-1 text-center text-sm">
        <p>
          Don&apos;t have an account?{' '}
          <Link
            to={withQuery(paths.registerPatient, search)}
            state={handOver}
            className="font-medium text-primary hover:underline"
          >
            Register as a patient
          </Link>
        </p>
        <p>
          Medical professional?{' '}
          <Link
            to={withQuery(paths.registerMedical, search)}
            state={handOver}
            className="font-medium text-primary hover:underline"
          >
            Apply for an account
          </Link>
        </p>
      </div>
    </form>
  );
}
