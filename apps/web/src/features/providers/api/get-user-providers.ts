import type { Provider } from '@mi/contracts/sharing';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/users/providers: the user's trusted providers, newest first (cached as the body, {data}). */
export function getUserProviders(signal?: AbortSignal): Promise<{ data: Provider[] }> {
  return api.get<{ data: Provider[] }>('/api/users/providers', { signal });
}

export function useUserProviders() {
  return useQuery({
    queryKey: queryKeys.userProviders,
    queryFn: ({ signal }) => getUserProviders(signal),
    select: (res) => res.data,
    refetchOnMount: 'always',
  });
}
