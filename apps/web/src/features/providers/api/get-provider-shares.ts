import type { Share } from '@mi/contracts/sharing';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/users/shares/provider/{providerId}: what the user shared with one provider (body {data}). */
export function getProviderShares(providerId: string, signal?: AbortSignal): Promise<{ data: Share[] }> {
  return api.get<{ data: Share[] }>(`/api/users/shares/provider/${encodeURIComponent(providerId)}`, {
    signal,
  });
}

/** Read each time the View Shared Studies dialog opens. */
export function useProviderShares(providerId: string | null) {
  return useQuery({
    queryKey: queryKeys.providerShares(providerId ?? ''),
    queryFn: ({ signal }) => getProviderShares(providerId!, signal),
    select: (res) => res.data,
    enabled: providerId !== null,
    refetchOnMount: 'always',
  });
}
