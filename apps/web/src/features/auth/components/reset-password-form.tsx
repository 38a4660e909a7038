import { zodResolver } from '@hookform/resolvers/zod';
import { resetPasswordBodySchema } from '@mi/contracts/auth';
import { PASSWORD_REQUIRED_MESSAGE } from '@mi/contracts/rules';
import { AlertCircle, Loader2 } from 'lucide-react';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { z } from 'zod';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { toast, toastError } from '@/hooks/use-toast';
import { isApiError } from '@/lib/api-client';
import { useResetPassword } from '../api/reset-password';
import { useVerifyResetToken } from '../api/verify-reset-token';
import { withPasswordConfirmation } from '../utils/password-confirmation';

// The reset form's rules: both required, matching, the reset-password strength rule and message.
const resetSchema = withPasswordConfirmation(
  resetPasswordBodySchema.pick({ newPassword: true }).extend({
    confirmPassword: z.string().min(1, PASSWORD_REQUIRED_MESSAGE),
  }),
  'newPassword',
);
type ResetValues = z.infer<typeof resetSchema>;

/**
 * /reset-password?email&challenge: checks the link first (spinner), then shows the form
 * or 'The reset password link was expired'. On success: toast and go to '/'.
 */
export function ResetPasswordForm() {
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const challenge = params.get('challenge') ?? params.get('token') ?? '';
  const check = useVerifyResetToken(email, challenge);

  if (email && challenge && check.isPending) {
    return (
      <div className="flex justify-center py-8">
        <Spinner className="size-6" label="Checking your reset link" />
      </div>
    );
  }
  if (!check.data?.isValid) {
    return (
      <div className="grid gap-4 text-center">
        <Alert variant="destructive" role="alert">
          <AlertCircle aria-hidden="true" />
          <AlertDescription>The reset password link was expired</AlertDescription>
        </Alert>
        <Link to={paths.forgotPassword} className="text-sm font-medium text-primary hover:underline">
          Request a new link
        </Link>
      </div>
    );
  }
  return <NewPasswordForm email={email} challenge={challenge} />;
}

function NewPasswordForm({ email, challenge }: { email: string; challenge: string }) {
  const id = useId();
  const navigate = useNavigate();
  const reset = useResetPassword();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<ResetValues>({
    resolver: zodResolver(resetSchema),
    defaultValues: { newPassword: '', confirmPassword: '' },
  });

  const onSubmit = async (values: ResetValues) => {
    try {
      const res = await reset.mutateAsync({ newPassword: values.newPassword, challenge, email });
      toast({ title: res.message || 'Password reset successful.' });
      navigate(paths.home, { replace: true });
    } catch (err) {
      toastError(
        isApiError(err) && err.serverMessage ? err.serverMessage : 'Password reset failed, Please try again',
      );
    }
  };

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="grid gap-4" aria-label="Reset password">
      <p className="text-center text-sm text-muted-foreground">Choose a new password for {email}.</p>
      <div className="grid gap-2">
        <Label htmlFor={`${id}-new`}>New Password</Label>
        <PasswordInput
          id={`${id}-new`}
          autoComplete="new-password"
          aria-invalid={errors.newPassword ? true : undefined}
          aria-describedby={errors.newPassword ? `${id}-new-error` : undefined}
          {...register('newPassword')}
        />
        <FieldError id={`${id}-new-error`} message={errors.newPassword?.message} />
      </div>
      <div className="grid gap-2">
        <Label htmlFor={`${id}-confirm`}>Confirm Password</Label>
        <PasswordInput
          id={`${id}-confirm`}
          autoComplete="new-password"
          aria-invalid={errors.confirmPassword ? true : undefined}
          aria-describedby={errors.confirmPassword ? `${id}-confirm-error` : undefined}
          {...register('confirmPassword')}
        />
        <FieldError id={`${id}-confirm-error`} message={errors.confirmPassword?.message} />
      </div>
      <Button type="submit" className="w-full" disabled={isSubmitting} aria-busy={isSubmitting || undefined}>
        {isSubmitting && <Loader2 className="animate-spin" aria-hidden="true" />}
        Reset Password
      </Button>
    </form>
  );
}
