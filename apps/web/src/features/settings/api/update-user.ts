import type { UpdateUserBody, User } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** PUT /api/users/{id}: any of the spec's fields; returns the updated user. */
export function updateUser({ id, ...body }: UpdateUserBody & { id: string }): Promise<User> {
  return api.put<User>(`/api/users/${encodeURIComponent(id)}`, body);
}

export function useUpdateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateUser,
    onSuccess: (user) => queryClient.setQueryData(queryKeys.me, user),
  });
}
