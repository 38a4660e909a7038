import { CheckCircle2, RefreshCw, RotateCcw } from 'lucide-react';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { EmptyState } from '@/components/empty-state';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { useFailedJobs, useRetryJob } from '../api/failed-jobs';
import { ReauthCancelled } from '../../shared/components/reauth-provider';

/** Background jobs that failed for good; each can be run again. */
export function FailedJobsList() {
  const jobs = useFailedJobs();
  const retry = useRetryJob();
  const list = jobs.data ?? [];
  return (
    <Card>
      <CardHeader className="flex-row items-center justify-between gap-2 space-y-0">
        <div>
          <CardTitle>Failed jobs</CardTitle>
          <CardDescription>Jobs that ran out of retries.</CardDescription>
        </div>
        <Button variant="outline" size="sm" onClick={() => jobs.refetch()} disabled={jobs.isFetching}>
          <RefreshCw aria-hidden="true" className={cn(jobs.isFetching && 'animate-spin')} /> Refresh
        </Button>
      </CardHeader>
      <CardContent>
        <ListStatus
          query={jobs}
          count={list.length}
          error="The failed jobs could not be loaded"
          empty={<EmptyState icon={CheckCircle2} title="No failed jobs" />}
        />
        {listStatus(jobs, list.length) === null && (
          <ul className="grid gap-3" aria-label="Failed jobs">
            {list.map((job) => (
              <li key={job.id} className="rounded-md border p-4">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{job.name}</span>
                  <Badge variant="destructive">{job.state}</Badge>
                  <span className="text-xs text-muted-foreground">Retries: {job.retryCount}</span>
                  <Button
                    size="sm"
                    variant="outline"
                    className="ml-auto"
                    aria-label={`Retry job ${job.id}`}
                    disabled={retry.isPending}
                    onClick={() =>
                      retry.mutate(job.id, {
                        onSuccess: (res) => toast({ title: res.message }),
                        onError: (err) =>
                          toastError(err instanceof ReauthCancelled ? err.message : errorMessage(err)),
                      })
                    }
                  >
                    <RotateCcw aria-hidden="true" /> Retry
                  </Button>
                </div>
                <dl className="mt-2 grid gap-x-4 gap-y-1 text-xs text-muted-foreground sm:grid-cols-[auto_1fr]">
                  <dt>Job ID</dt>
                  <dd className="break-all font-mono">{job.id}</dd>
                  <dt>Created</dt>
                  <dd>
                    <time dateTime={job.createdOn}>{formatDateTime(job.createdOn)}</time>
                  </dd>
                  <dt>Finished</dt>
                  <dd>
                    {job.completedOn ? (
                      <time dateTime={job.completedOn}>{formatDateTime(job.completedOn)}</time>
                    ) : (
                      '—'
                    )}
                  </dd>
                </dl>
                {job.error && (
                  <pre className="mt-3 max-h-48 overflow-auto whitespace-pre-wrap break-words rounded-md bg-muted p-3 text-xs">
                    {job.error}
                  </pre>
                )}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
