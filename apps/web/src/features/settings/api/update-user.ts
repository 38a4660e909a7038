import type { UpdateUserBody, User } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

// The signed-in user's query key is its URL (spec §7 default read), shared with features/auth.
export const ME_KEY = ['/api/auth/me'] as const;

/** PUT /api/users/{id}: any of the spec's fields; returns the updated user. */
export function updateUser({ id, ...body }: UpdateUserBody & { id: string }): Promise<User> {
  return api.put<User>(`/api/users/${encodeURIComponent(id)}`, body);
}

export function useUpdateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateUser,
    onSuccess: (user) => queryClient.setQueryData(ME_KEY, user),
  });
}
