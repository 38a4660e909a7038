import type { CreateShareBody, CreateShareResponse, Provider, Share } from '@mi/contracts/sharing';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/users/shares/study/{studyId}: who the study is shared with now. */
export async function getStudyShares(studyId: string, signal?: AbortSignal): Promise<Share[]> {
  const res = await api.get<{ data: Share[] }>(`/api/users/shares/study/${encodeURIComponent(studyId)}`, {
    signal,
  });
  return res.data;
}

/** The Share dialog's 'Currently Shared With', read each time the dialog opens. */
export function useStudyShares(studyId: string | null) {
  return useQuery({
    queryKey: queryKeys.shares.byStudy(studyId ?? ''),
    queryFn: ({ signal }) => getStudyShares(studyId!, signal),
    enabled: studyId !== null,
    refetchOnMount: 'always',
  });
}

/**
 * GET /api/users/providers: the user's providers, suggested in the Share dialog. The cache holds the
 * body as the default read returns it ({data}), so other pages reading the same key agree on it.
 */
export function useUserProviders(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.userProviders,
    queryFn: ({ signal }) => api.get<{ data: Provider[] }>('/api/users/providers', { signal }),
    select: (res) => res.data,
    enabled,
    refetchOnMount: 'always',
  });
}

/**
 * POST /api/users/shares: one recipient (an email, added to the user's providers, or a provider). A
 * de-identified share whose copy is still being made answers `pending` (202) without the share.
 */
export function createShare(body: CreateShareBody): Promise<CreateShareResponse> {
  return api.post<CreateShareResponse>('/api/users/shares', body);
}

/**
 * Shares with each recipient in turn (one call each), stopping at nothing: every result is returned.
 * Afterwards the study's shares, provider shares, the user's providers, their studies and pending jobs
 * are read again.
 */
export function useShareStudy(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (bodies: CreateShareBody[]) => {
      const results: PromiseSettledResult<CreateShareResponse>[] = [];
      for (const body of bodies) {
        results.push(
          await createShare(body).then(
            (value) => ({ status: 'fulfilled', value }) as const,
            (reason: unknown) => ({ status: 'rejected', reason }) as const,
          ),
        );
      }
      return results;
    },
    onSettled: (_data, _error, bodies) =>
      Promise.all([
        ...[...new Set(bodies.map((b) => b.studyId))].map((studyId) =>
          queryClient.invalidateQueries({ queryKey: queryKeys.shares.byStudy(studyId) }),
        ),
        queryClient.invalidateQueries({ queryKey: queryKeys.shares.byProviderAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.userProviders }),
        queryClient.invalidateQueries({ queryKey: queryKeys.userStudies.byUser(userId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.pendingJobs.all }),
      ]),
  });
}

/** DELETE /api/users/shares/{shareId}: the recipient loses the study at once. */
export function useRevokeShare() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ shareId }: { shareId: string; studyId: string }) =>
      api.delete<{ message: string }>(`/api/users/shares/${encodeURIComponent(shareId)}`),
    onSettled: (_data, _error, { studyId }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.shares.byStudy(studyId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.shares.byProviderAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.studyAccess(studyId) }),
      ]),
  });
}
