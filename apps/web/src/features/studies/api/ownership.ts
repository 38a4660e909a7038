import type { StudyListItem } from '@mi/contracts/studies';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

export interface OwnershipResponse {
  message: string;
  newOwnerId?: string;
}

/** By the Transfer dialog's email, or by the requester named in an approve link. */
export type TransferOwnershipInput =
  { studyId: string; requesterEmail: string } | { studyId: string; requesterId: string };

/**
 * PUT /api/studies/ownership/transfer. The study leaves the owner's list at once; the list and the
 * current user (storage use) are read again.
 */
export function useTransferOwnership(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TransferOwnershipInput) =>
      api.put<OwnershipResponse>('/api/studies/ownership/transfer', body),
    onSuccess: (_res, { studyId }) => {
      queryClient.setQueryData<StudyListItem[]>(queryKeys.userStudies.byUser(userId), (list) =>
        list?.filter((s) => s.id !== studyId),
      );
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.userStudies.byUser(userId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.me }),
      ]);
    },
  });
}

/** POST /api/studies/ownership/request: a recipient asks the owner for the study. */
export function useRequestOwnership() {
  return useMutation({
    mutationFn: (studyId: string) =>
      api.post<OwnershipResponse>('/api/studies/ownership/request', { studyId }),
  });
}
