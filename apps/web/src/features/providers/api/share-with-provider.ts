import type { Share } from '@mi/contracts/sharing';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

interface ShareInput {
  providerId: string;
  studyId: string;
}

/** POST /api/users/shares {providerId, studyId}: shares a study with one of the user's providers. */
export function shareWithProvider(input: ShareInput): Promise<{ message: string; data: Share }> {
  return api.post('/api/users/shares', input);
}

/** After sharing: the provider's shares, the user's providers, studies and pending jobs are read again. */
export function useShareWithProvider(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: shareWithProvider,
    onSettled: (_data, _error, { providerId, studyId }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.providerShares(providerId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.shares.byStudy(studyId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.userProviders }),
        queryClient.invalidateQueries({ queryKey: queryKeys.userStudies.byUser(userId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.pendingJobs.all }),
      ]),
  });
}
