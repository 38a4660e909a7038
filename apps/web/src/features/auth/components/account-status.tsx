import type { User } from '@mi/contracts/auth';
import { Clock, LogOut, XCircle } from 'lucide-react';
import { AuthLayout } from '@/components/layouts/auth-layout';
import { Button } from '@/components/ui/button';
import { useLogout } from '../api/logout';

/**
 * What a signed-in professional sees until an admin has verified them: the pending notice, or
 * the rejection with its reason. Nothing else of the app is reachable (the server agrees: 403).
 */
export function AccountStatus({ user }: { user: User }) {
  const logout = useLogout();
  const rejected = user.accountStatus === 'rejected';
  return (
    <AuthLayout
      title={rejected ? 'Application Not Approved' : 'Registration Pending'}
      description={`Signed in as ${user.email}`}
      icon={
        <div className="mx-auto flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
          {rejected ? (
            <XCircle className="size-6" aria-hidden="true" />
          ) : (
            <Clock className="size-6" aria-hidden="true" />
          )}
        </div>
      }
    >
      <div className="grid gap-4 text-center">
        {rejected ? (
          <>
            <p className="text-sm text-muted-foreground">
              An administrator could not verify your medical professional account.
            </p>
            <div className="rounded-md border bg-muted p-3 text-left text-sm">
              <span className="font-medium">Reason: </span>
              {user.rejectionReason || 'No reason was given.'}
            </div>
          </>
        ) : (
          <p className="text-sm text-muted-foreground">
            An administrator will verify your medical licence before your account can be used. We will email
            you once it has been reviewed.
          </p>
        )}
        <Button variant="outline" onClick={() => logout.mutate()} disabled={logout.isPending}>
          <LogOut aria-hidden="true" /> Logout
        </Button>
      </div>
    </AuthLayout>
  );
}
