import type { User } from '@mi/contracts/auth';
import { KeyRound, LogOut } from 'lucide-react';
import { AuthLayout } from '@/components/layouts/auth-layout';
import { Button } from '@/components/ui/button';
import { toast } from '@/hooks/use-toast';
import { useLogout } from '@/features/auth/api/logout';
import { PasswordForm } from '@/features/settings/components/password-form';

/**
 * What an account signed in with a one-time password (the first admin's, printed at first start)
 * sees until it has chosen its own: nothing else is reachable (the server agrees: 403
 * PASSWORD_CHANGE_REQUIRED). Once changed, the account's details are read again and the page the
 * user was going to opens.
 */
export function PasswordChangeRequired({ user }: { user: User }) {
  const logout = useLogout();
  return (
    <AuthLayout
      title="Choose a new password"
      description={`Signed in as ${user.email}`}
      icon={
        <div className="mx-auto flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
          <KeyRound className="size-6" aria-hidden="true" />
        </div>
      }
    >
      <div className="grid gap-4">
        <p className="text-sm text-muted-foreground">
          The password you signed in with was a one-time password and cannot be used again. Choose your own to
          continue.
        </p>
        <PasswordForm
          user={user}
          currentLabel="One-time password"
          className="grid gap-4"
          onChanged={(message) => toast({ title: 'Password changed', description: message })}
        />
        <Button variant="outline" onClick={() => logout.mutate()} disabled={logout.isPending}>
          <LogOut aria-hidden="true" /> Logout
        </Button>
      </div>
    </AuthLayout>
  );
}
