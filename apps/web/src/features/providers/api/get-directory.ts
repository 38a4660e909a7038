import type { Provider } from '@mi/contracts/sharing';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/providers: the whole provider directory (the dialog filters it as the user types). */
export function getDirectory(signal?: AbortSignal): Promise<{ data: Provider[] }> {
  return api.get<{ data: Provider[] }>('/api/providers', { signal });
}

/** Read when the Add Existing Provider dialog opens. */
export function useDirectory(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.providers,
    queryFn: ({ signal }) => getDirectory(signal),
    select: (res) => res.data,
    enabled,
    refetchOnMount: 'always',
  });
}
