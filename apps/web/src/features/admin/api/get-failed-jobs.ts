import type { FailedJob } from '@mi/contracts/admin';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/admin/jobs/failed: background jobs that ran out of retries (admins only). */
export async function getFailedJobs(signal?: AbortSignal): Promise<FailedJob[]> {
  const res = await api.get<{ data: FailedJob[] }>('/api/admin/jobs/failed', { signal });
  return res.data;
}

export function failedJobsQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.admin.failedJobs,
    queryFn: ({ signal }) => getFailedJobs(signal),
  });
}

export function useFailedJobs() {
  return useQuery(failedJobsQueryOptions());
}
