import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { FullPageSpinner } from '@/components/full-page-spinner';
import { Button } from '@/components/ui/button';
import { useMe } from '@/features/auth/api/get-me';
import { usePublicConfig } from '@/features/auth/api/get-public-config';
import { SessionTimeout } from '@/features/auth/components/session-timeout';
import { errorMessage } from '@/lib/api-client';

/** Asks the server who is signed in before any route renders; runs the inactivity timer while someone is. */
export function RootLayout() {
  const me = useMe();
  const config = usePublicConfig();
  if (me.isPending) return <FullPageSpinner />;
  if (me.isError) {
    return (
      <div className="flex min-h-full items-center justify-center p-6">
        <div role="alert" className="grid max-w-sm gap-3 text-center">
          <h1 className="text-lg font-semibold">The server could not be reached</h1>
          <p className="text-sm text-muted-foreground">
            {errorMessage(me.error, 'Please try again in a moment.')}
          </p>
          <Button onClick={() => me.refetch()} disabled={me.isFetching}>
            Try again
          </Button>
        </div>
      </div>
    );
  }
  const session = me.data ? config.data?.session : undefined;
  return (
    <>
      <Suspense fallback={<FullPageSpinner />}>
        <Outlet />
      </Suspense>
      {session && (
        <SessionTimeout
          key={me.data?.id}
          idleMinutes={session.idleMinutes}
          warningMinutes={session.warningMinutes}
        />
      )}
    </>
  );
}
