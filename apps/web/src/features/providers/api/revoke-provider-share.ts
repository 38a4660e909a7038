import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** DELETE /api/users/shares/{shareId}: ends one share (the recipient loses the study at once). */
export function revokeProviderShare(shareId: string): Promise<{ message: string }> {
  return api.delete<{ message: string }>(`/api/users/shares/${encodeURIComponent(shareId)}`);
}

/** Revoke in View Shared Studies; the provider's list and the study's shares are read again. */
export function useRevokeProviderShare() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ shareId }: { shareId: string; studyId: string }) => revokeProviderShare(shareId),
    onSettled: (_data, _error, { studyId }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.shares.byProviderAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.shares.byStudy(studyId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.studyAccess(studyId) }),
      ]),
  });
}
