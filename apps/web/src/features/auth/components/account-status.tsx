import type { User } from '@mi/contracts/auth';
import { Clock, LogOut, XCircle } from 'lucide-react';
import { Brand } from '@/components/brand';
import { useDocumentTitle } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader } from '@/components/ui/card';
import { useLogout } from '../api/logout';

/**
 * What a signed-in professional sees until an admin has verified them: the pending notice, or
 * the rejection with its reason. Nothing else of the app is reachable (the server agrees: 403).
 */
export function AccountStatus({ user }: { user: User }) {
  const logout = useLogout();
  const rejected = user.accountStatus === 'rejected';
  const title = rejected ? 'Application Not Approved' : 'Registration Pending';
  useDocumentTitle(title);
  return (
    <div className="flex min-h-full flex-col bg-linear-to-b from-accent/60 to-background">
      <header className="px-4 py-4 sm:px-8">
        <Brand />
      </header>
      <main className="flex flex-1 items-start justify-center px-4 pb-12 pt-4 sm:items-center sm:pt-0">
        <Card className="w-full max-w-md text-center">
          <CardHeader>
            <div className="mx-auto flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
              {rejected ? (
                <XCircle className="size-6" aria-hidden="true" />
              ) : (
                <Clock className="size-6" aria-hidden="true" />
              )}
            </div>
            <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
            <CardDescription>Signed in as {user.email}</CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
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
                An administrator will verify your medical licence before your account can be used. We will
                email you once it has been reviewed.
              </p>
            )}
            <Button variant="outline" onClick={() => logout.mutate()} disabled={logout.isPending}>
              <LogOut aria-hidden="true" /> Logout
            </Button>
          </CardContent>
        </Card>
      </main>
    </div>
  );
}
