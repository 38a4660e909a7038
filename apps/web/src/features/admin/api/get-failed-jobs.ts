import type { FailedJob } from '@mi/contracts/admin';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const FAILED_JOBS_QUERY_KEY = ['/api/admin/jobs/failed'] as const;

/** GET /api/admin/jobs/failed: background jobs that ran out of retries (admins only). */
export async function getFailedJobs(signal?: AbortSignal): Promise<FailedJob[]> {
  const res = await api.get<{ data: FailedJob[] }>('/api/admin/jobs/failed', { signal });
  return res.data;
}

export function failedJobsQueryOptions() {
  return queryOptions({ queryKey: FAILED_JOBS_QUERY_KEY, queryFn: ({ signal }) => getFailedJobs(signal) });
}

export function useFailedJobs() {
  return useQuery(failedJobsQueryOptions());
}
