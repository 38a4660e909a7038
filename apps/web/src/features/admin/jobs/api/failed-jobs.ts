import type { FailedJob } from '@mi/contracts/admin';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../../shared/components/reauth-provider';

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

/** POST /api/admin/jobs/{id}/retry. */
export function useRetryJob() {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: (id: string) =>
      withReauth(() => api.post<{ message: string }>(`/api/admin/jobs/${encodeURIComponent(id)}/retry`)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin.failedJobs }),
  });
}
