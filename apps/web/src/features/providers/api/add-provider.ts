import type { Provider } from '@mi/contracts/sharing';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/users/providers {providerId}: adds a directory provider to the user's network. */
export function addProvider(providerId: string): Promise<{ message: string; data: Provider }> {
  return api.post('/api/users/providers', { providerId });
}

export function useAddProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addProvider,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.userProviders }),
  });
}
