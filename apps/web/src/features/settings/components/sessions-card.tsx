import { LogOut, Monitor, RefreshCw } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useSessions } from '../api/get-sessions';
import { useRevokeOtherSessions } from '../api/revoke-other-sessions';
import { useRevokeSession } from '../api/revoke-session';
import { useFreshProof } from '../hooks/use-fresh-proof';

/**
 * Where the user is signed in; any other device can be signed out (after "Confirm it's you" when
 * the last proof of identity is older than 5 minutes).
 */
export function SessionsCard() {
  const sessions = useSessions();
  const revoke = useRevokeSession();
  const revokeOthers = useRevokeOtherSessions();
  const list = sessions.data ?? [];
  const others = list.filter((s) => !s.current).length;
  const proof = useFreshProof();

  return (
    <Card>
      <CardHeader className="flex-row items-start justify-between gap-2 space-y-0">
        <div>
          <CardTitle>Active sessions</CardTitle>
          <CardDescription>Devices where you are signed in.</CardDescription>
        </div>
        <Button
          variant="ghost"
          size="icon"
          aria-label="Refresh sessions"
          onClick={() => sessions.refetch()}
          disabled={sessions.isFetching}
        >
          <RefreshCw aria-hidden="true" />
        </Button>
      </CardHeader>
      <CardContent className="grid gap-3">
        {sessions.isPending && <Spinner className="size-5" label="Loading sessions" />}
        {sessions.isError && (
          <p role="alert" className="text-sm text-destructive">
            {errorMessage(sessions.error)}
          </p>
        )}
        <ul className="divide-y rounded-md border" aria-label="Active sessions">
          {list.map((s) => (
            <li key={s.id} className="flex flex-wrap items-center gap-3 p-3">
              <Monitor className="size-5 shrink-0 text-muted-foreground" aria-hidden="true" />
              <div className="grid min-w-0 flex-1 gap-0.5">
                <span className="flex flex-wrap items-center gap-2 font-medium">
                  {s.device}
                  {s.current && <Badge>This device</Badge>}
                </span>
                <span className="text-xs text-muted-foreground">
                  {s.ip ? `${s.ip} · ` : ''}Last active{' '}
                  <time dateTime={s.lastSeenAt}>{formatDateTime(s.lastSeenAt)}</time>
                </span>
              </div>
              {!s.current && (
                <Button
                  size="sm"
                  variant="outline"
                  disabled={revoke.isPending}
                  onClick={() =>
                    proof.run(() => revoke.mutateAsync(s.id), {
                      onSuccess: () =>
                        toast({ title: 'Session revoked', description: `${s.device} was signed out.` }),
                      onError: (err) => toastError(errorMessage(err)),
                    })
                  }
                >
                  <LogOut aria-hidden="true" /> Sign out
                </Button>
              )}
            </li>
          ))}
        </ul>
        <div>
          <Button
            variant="outline"
            disabled={others === 0 || revokeOthers.isPending}
            onClick={() =>
              proof.run(() => revokeOthers.mutateAsync(), {
                onSuccess: (res) => toast({ title: 'Sessions revoked', description: res.message }),
                onError: (err) => toastError(errorMessage(err)),
              })
            }
          >
            Sign out all other sessions
          </Button>
        </div>
      </CardContent>
      {proof.dialog}
    </Card>
  );
}
