import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** DELETE /api/users/providers {providerId}: takes a provider off the list; its shares stay. */
export function removeProvider(providerId: string): Promise<{ message: string }> {
  return api.delete('/api/users/providers', { providerId });
}

export function useRemoveProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeProvider,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.userProviders }),
  });
}
