import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * DELETE /api/studies/{userId}/{studyId}. The server answers 404 for a study that is already gone
 * (deleted from another tab, say); for the user who asked, that is the outcome they wanted.
 */
export async function deleteStudy({
  userId,
  studyId,
}: {
  userId: string;
  studyId: string;
}): Promise<{ message: string }> {
  try {
    return await api.delete<{ message: string }>(
      `/api/studies/${encodeURIComponent(userId)}/${encodeURIComponent(studyId)}`,
    );
  } catch (err) {
    if (isApiError(err, 'NOT_FOUND')) return { message: 'The study has been successfully deleted.' };
    throw err;
  }
}

/** After a deletion, the user's studies and the current user (storage use) are read again. */
export function useDeleteStudy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteStudy,
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.userStudies.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.me }),
      ]),
  });
}
