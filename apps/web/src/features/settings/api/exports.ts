import type { CreateExportRequest, DataExport } from '@mi/contracts/exports';
import type { StudyListItem } from '@mi/contracts/studies';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** The query key of GET /api/exports: the user's exports, newest first. */
export const exportsKey = ['/api/exports'] as const;

/** GET /api/exports. */
export async function getExports(signal?: AbortSignal): Promise<DataExport[]> {
  return (await api.get<{ exports: DataExport[] }>('/api/exports', { signal })).exports;
}

/** While an export is being built, the list is read again every 2 s to show its progress. */
export function useExports() {
  return useQuery({
    ...queryOptions({ queryKey: exportsKey, queryFn: ({ signal }) => getExports(signal) }),
    refetchInterval: (q) =>
      (q.state.data ?? []).some((e) => e.status === 'queued' || e.status === 'building') ? 2000 : false,
  });
}

/** POST /api/exports: starts an export (all studies when `studyIds` is left out). */
export function useCreateExport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateExportRequest) => api.post<{ id: string }>('/api/exports', body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: exportsKey }),
  });
}

/** The studies one may choose from: the same list (and cache entry) as My Studies. */
export function useExportableStudies(userId: string) {
  return useQuery(
    queryOptions({
      queryKey: queryKeys.userStudies.byUser(userId),
      queryFn: async ({ signal }) =>
        (
          await api.get<{ data: StudyListItem[] }>(`/api/studies/user/${encodeURIComponent(userId)}`, {
            signal,
          })
        ).data,
    }),
  );
}
