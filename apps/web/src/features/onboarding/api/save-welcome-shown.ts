import type { User } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

// The signed-in user's query key is its URL (spec §7 default read), shared with features/auth.
const ME_KEY = ['/api/auth/me'] as const;

/** PUT /api/users/{id} {welcomeModalShown: true}: the welcome dialog is not shown again. */
export function saveWelcomeShown(userId: string): Promise<User> {
  return api.put<User>(`/api/users/${encodeURIComponent(userId)}`, { welcomeModalShown: true });
}

export function useSaveWelcomeShown() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveWelcomeShown,
    onSuccess: (user) => queryClient.setQueryData(ME_KEY, user),
    // Spec §8 lists no toast for this; a failure only means the dialog may show again next time.
    onError: (err) => console.error('Saving the welcome dialog state failed', err),
  });
}
