import type { User } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** PUT /api/users/{id} {welcomeModalShown: true}: the welcome dialog is not shown again. */
export function saveWelcomeShown(userId: string): Promise<User> {
  return api.put<User>(`/api/users/${encodeURIComponent(userId)}`, { welcomeModalShown: true });
}

export function useSaveWelcomeShown() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveWelcomeShown,
    onSuccess: (user) => queryClient.setQueryData(queryKeys.me, user),
    // No toast for this; a failure only means the dialog may show again next time.
    onError: (err) => console.error('Saving the welcome dialog state failed', err),
  });
}
