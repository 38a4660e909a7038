import { zodResolver } from '@hookform/resolvers/zod';
import { mfaVerifyBodySchema } from '@mi/contracts/auth';
import { MFA_RESEND_COOLDOWN_SECONDS } from '@mi/contracts/rules';
import { useQueryClient } from '@tanstack/react-query';
import { AlertCircle, Loader2 } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { useSearchParams } from 'react-router';
import type { z } from 'zod';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { linkShareFromSearch } from '../api/link-share';
import { useResendMfa } from '../api/resend-mfa';
import { useVerifyMfa } from '../api/verify-mfa';

const MISSING_PARAMS = 'Missing email or user ID in URL parameters.';

// The code is required (the server's rule); email and userId come from the URL.
const mfaCodeSchema = mfaVerifyBodySchema.pick({ mfaSecret: true });
type MfaCodeValues = z.infer<typeof mfaCodeSchema>;

function toastMissingParams() {
  toast({ title: 'Error', description: MISSING_PARAMS, variant: 'destructive' });
}

/** 30 → '0:30' (the resend countdown shows m:ss). */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * /mfa/verify?userId&email: the second step of a sign-in. The pending-login
 * cookie set by the password step travels with the request; the code alone signs nobody in.
 */
export function MfaVerifyForm() {
  const id = useId();
  const [params] = useSearchParams();
  const userId = params.get('userId') ?? '';
  const email = params.get('email') ?? '';
  const isTotp = params.get('method') === 'totp';
  const queryClient = useQueryClient();
  const verify = useVerifyMfa();
  const resend = useResendMfa();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<MfaCodeValues>({ resolver: zodResolver(mfaCodeSchema), defaultValues: { mfaSecret: '' } });
  const [failure, setFailure] = useState<string | null>(null);
  // The first code was sent with the password step, so the countdown starts right away.
  const [cooldown, setCooldown] = useState(MFA_RESEND_COOLDOWN_SECONDS);

  useEffect(() => {
    if (!userId || !email) toastMissingParams();
  }, [userId, email]);

  useEffect(() => {
    if (cooldown <= 0) return;
    const timer = setTimeout(() => setCooldown((c) => c - 1), 1000);
    return () => clearTimeout(timer);
  }, [cooldown]);

  const verifyCode = async ({ mfaSecret }: MfaCodeValues) => {
    if (!userId || !email) {
      toastMissingParams();
      return;
    }
    try {
      const res = await verify.mutateAsync({ mfaSecret, email, userId });
      await linkShareFromSearch(params.toString(), res.user.id);
      // Cache the user (the response carries no tokens the SPA keeps), then toast.
      queryClient.setQueryData(queryKeys.me, res.user);
      toast({ title: 'Logged in successfully' });
    } catch (err) {
      setFailure(
        isApiError(err, 'MFA_SESSION_EXPIRED') || isApiError(err, 'RATE_LIMITED')
          ? errorMessage(err)
          : 'Invalid/Expired Code',
      );
    }
  };

  // A new attempt clears the last failure, also when the code is then found missing.
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    setFailure(null);
    void handleSubmit(verifyCode)(event);
  };

  const onResend = async () => {
    if (!email) {
      toastMissingParams();
      return;
    }
    try {
      const res = await resend.mutateAsync(email);
      toast({ title: res.message });
      setCooldown(MFA_RESEND_COOLDOWN_SECONDS);
      setFailure(null);
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  return (
    <form noValidate onSubmit={onSubmit} className="grid gap-4" aria-label="Verify code">
      <p className="text-center text-sm text-muted-foreground">
        {isTotp
          ? 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.'
          : `We sent a 6-digit code to ${email || 'your email'}. It expires in 10 minutes.`}
      </p>
      {failure && (
        <Alert variant="destructive" role="alert">
          <AlertCircle aria-hidden="true" />
          <AlertDescription>{failure}</AlertDescription>
        </Alert>
      )}
      <div className="grid gap-2">
        <Label htmlFor={`${id}-code`}>MFA Code</Label>
        <Input
          id={`${id}-code`}
          inputMode={isTotp ? 'text' : 'numeric'}
          autoComplete="one-time-code"
          maxLength={isTotp ? 20 : 6}
          autoFocus
          className="text-center text-lg tracking-[0.4em]"
          aria-invalid={errors.mfaSecret ? true : undefined}
          aria-describedby={errors.mfaSecret ? `${id}-code-error` : undefined}
          {...register('mfaSecret')}
        />
        <FieldError id={`${id}-code-error`} message={errors.mfaSecret?.message} />
      </div>
      <Button
        type="submit"
        className="w-full"
        disabled={verify.isPending}
        aria-busy={verify.isPending || undefined}
      >
        {verify.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
        {verify.isPending ? 'Verifying Code...' : 'Verify'}
      </Button>
      {!isTotp && (
        <p className="text-center text-sm" aria-live="polite">
          {cooldown > 0 ? (
            <span className="text-muted-foreground">Resend code in {formatCountdown(cooldown)}</span>
          ) : (
            <button
              type="button"
              onClick={onResend}
              disabled={resend.isPending}
              className="font-medium text-primary hover:underline disabled:opacity-50"
            >
              Resend code
            </button>
          )}
        </p>
      )}
    </form>
  );
}
