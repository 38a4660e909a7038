import type { PendingJobs } from '@mi/contracts/studies';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** How often pending jobs are polled. */
export const JOB_POLL_INTERVAL_MS = 5000;

/** GET /api/jobs/pending/{userId}. */
export function getPendingJobs(userId: string, signal?: AbortSignal): Promise<PendingJobs> {
  return api.get<PendingJobs>(`/api/jobs/pending/${encodeURIComponent(userId)}`, { signal });
}

export function processJobCount(jobs: PendingJobs | undefined): number {
  return jobs?.jobs.filter((j) => j.name === 'process-study').length ?? 0;
}

/** Polled every 5000 ms while anything is pending, otherwise not at all. */
export function pendingJobsQueryOptions(userId: string) {
  return queryOptions({
    queryKey: queryKeys.pendingJobs.byUser(userId),
    queryFn: ({ signal }) => getPendingJobs(userId, signal),
    refetchInterval: (query) => ((query.state.data?.count ?? 0) > 0 ? JOB_POLL_INTERVAL_MS : false),
  });
}

/**
 * Pending jobs of the user, re-read on entering the page. When the count of process-study jobs
 * falls from above 0 to 0 the studies list is read again, and so are the
 * notifications, since each finished job leaves one.
 */
export function usePendingJobs(userId: string) {
  const queryClient = useQueryClient();
  const query = useQuery({ ...pendingJobsQueryOptions(userId), refetchOnMount: 'always' });
  const count = processJobCount(query.data);
  const previous = useRef(count);
  useEffect(() => {
    if (previous.current > 0 && count === 0) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.userStudies.byUser(userId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.notifications });
    }
    previous.current = count;
  }, [count, queryClient, userId]);
  return { ...query, processCount: count };
}
