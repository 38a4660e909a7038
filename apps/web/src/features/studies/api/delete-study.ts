import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** DELETE /api/studies/{userId}/{studyId}. */
export function deleteStudy({
  userId,
  studyId,
}: {
  userId: string;
  studyId: string;
}): Promise<{ message: string }> {
  return api.delete<{ message: string }>(
    `/api/studies/${encodeURIComponent(userId)}/${encodeURIComponent(studyId)}`,
  );
}

/** Spec §7: afterwards the user's studies and the current user (storage use) are read again. */
export function useDeleteStudy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteStudy,
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['/api/studies/user'] }),
        queryClient.invalidateQueries({ queryKey: ['/api/auth/me'] }),
      ]),
  });
}
