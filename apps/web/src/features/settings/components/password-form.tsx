import { changePasswordBodySchema, type User } from '@mi/contracts/auth';
import { Loader2 } from 'lucide-react';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { errorMessage } from '@/lib/api-client';
import { useChangePassword } from '../api/change-password';
import { useFreshProof } from '../hooks/use-fresh-proof';

const MISMATCH = 'Passwords do not match';

/**
 * Choosing a new password: the current one proves it is you; an account that signs in with Google
 * only sets a first password after "Confirm it's you". Used by Settings (PasswordCard) and by the
 * screen shown after signing in with a one-time password (app/layouts/password-change-required.tsx).
 */
export function PasswordForm({
  user,
  currentLabel = 'Current password',
  className = 'grid gap-4 sm:max-w-sm',
  onChanged,
}: {
  user: User;
  currentLabel?: string;
  className?: string;
  onChanged: (message: string) => void;
}): ReactNode {
  const id = useId();
  const change = useChangePassword();
  const proof = useFreshProof();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [errors, setErrors] = useState<{ current?: string; next?: string; again?: string; form?: string }>(
    {},
  );

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = changePasswordBodySchema.safeParse({
      ...(user.hasPassword ? { currentPassword: current } : {}),
      newPassword: next,
    });
    const found: typeof errors = {};
    if (!parsed.success)
      for (const issue of parsed.error.issues) {
        const key = issue.path[0] === 'currentPassword' ? 'current' : 'next';
        found[key] ??= issue.message;
      }
    if (next && again !== next) found.again = MISMATCH;
    setErrors(found);
    if (!parsed.success || found.again) return;
    proof.run(() => change.mutateAsync(parsed.data), {
      onSuccess: (res) => {
        setCurrent('');
        setNext('');
        setAgain('');
        onChanged(res.message);
      },
      onError: (err) => setErrors({ form: errorMessage(err) }),
    });
  };

  const field = (key: 'current' | 'next' | 'again') => ({
    id: `${id}-${key}`,
    'aria-invalid': errors[key] ? true : undefined,
    'aria-describedby': errors[key] ? `${id}-${key}-error` : undefined,
  });

  return (
    <>
      <form
        noValidate
        onSubmit={onSubmit}
        className={className}
        aria-label={user.hasPassword ? 'Change password' : 'Set a password'}
      >
        {user.hasPassword && (
          <div className="grid gap-2">
            <Label htmlFor={`${id}-current`}>{currentLabel}</Label>
            <PasswordInput
              autoComplete="current-password"
              value={current}
              onChange={(e) => setCurrent(e.target.value)}
              {...field('current')}
            />
            <FieldError id={`${id}-current-error`} message={errors.current} />
          </div>
        )}
        <div className="grid gap-2">
          <Label htmlFor={`${id}-next`}>New password</Label>
          <PasswordInput
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            {...field('next')}
          />
          <FieldError id={`${id}-next-error`} message={errors.next} />
        </div>
        <div className="grid gap-2">
          <Label htmlFor={`${id}-again`}>Confirm new password</Label>
          <PasswordInput
            autoComplete="new-password"
            value={again}
            onChange={(e) => setAgain(e.target.value)}
            {...field('again')}
          />
          <FieldError id={`${id}-again-error`} message={errors.again} />
        </div>
        {errors.form && (
          <p role="alert" className="text-sm text-destructive">
            {errors.form}
          </p>
        )}
        <div>
          <Button type="submit" disabled={change.isPending} aria-busy={change.isPending || undefined}>
            {change.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
            {user.hasPassword ? 'Change password' : 'Set password'}
          </Button>
        </div>
      </form>
      {proof.dialog}
    </>
  );
}
