import { zodResolver } from '@hookform/resolvers/zod';
import { forgotPasswordBodySchema } from '@mi/contracts/auth';
import { CheckCircle2, Loader2 } from 'lucide-react';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { toast, toastError } from '@/hooks/use-toast';
import { isApiError } from '@/lib/api-client';
import { useForgotPassword } from '../api/forgot-password';

// Email required, email type (the server's rule).
type ForgotValues = z.infer<typeof forgotPasswordBodySchema>;

/** /forgot-password: asks for a reset link; the answer never says whether the email exists. */
export function ForgotPasswordForm() {
  const id = useId();
  const forgot = useForgotPassword();
  const [sentMessage, setSentMessage] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<ForgotValues>({
    resolver: zodResolver(forgotPasswordBodySchema),
    defaultValues: { email: '' },
  });

  const onSubmit = async ({ email }: ForgotValues) => {
    try {
      const res = await forgot.mutateAsync(email);
      const message = res.message || 'Password reset link sent to your email';
      setSentMessage(message);
      toast({ title: message });
    } catch (err) {
      toastError(
        isApiError(err) && err.serverMessage ? err.serverMessage : 'Something went wrong. Please try again.',
      );
    }
  };

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="grid gap-4" aria-label="Forgot password">
      <p className="text-center text-sm text-muted-foreground">
        Enter the email address of your account and we will send you a link to reset your password.
      </p>
      {sentMessage && (
        <Alert variant="info" role="status">
          <CheckCircle2 aria-hidden="true" />
          <AlertDescription>{sentMessage}</AlertDescription>
        </Alert>
      )}
      <div className="grid gap-2">
        <Label htmlFor={`${id}-email`}>Email</Label>
        <Input
          id={`${id}-email`}
          type="email"
          inputMode="email"
          autoComplete="email"
          aria-invalid={errors.email ? true : undefined}
          aria-describedby={errors.email ? `${id}-email-error` : undefined}
          {...register('email')}
        />
        <FieldError id={`${id}-email-error`} message={errors.email?.message} />
      </div>
      <Button type="submit" className="w-full" disabled={isSubmitting} aria-busy={isSubmitting || undefined}>
        {isSubmitting && <Loader2 className="animate-spin" aria-hidden="true" />}
        Submit
      </Button>
    </form>
  );
}
