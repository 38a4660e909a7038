import type { providerRatingsSchema } from '@mi/contracts/directory';
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

export type ProviderRatings = z.infer<typeof providerRatingsSchema>;

/** GET /api/providers/{id}/ratings: a provider's mean, count and each rating (hidden comments left out). */
export function getProviderRatings(providerId: string, signal?: AbortSignal): Promise<ProviderRatings> {
  return api.get<ProviderRatings>(`/api/providers/${encodeURIComponent(providerId)}/ratings`, { signal });
}

/** Read while Provider Details is open for a directory entry (a private contact has none). */
export function useProviderRatings(providerId: string | null) {
  return useQuery({
    queryKey: queryKeys.providerRatings(providerId ?? ''),
    queryFn: ({ signal }) => getProviderRatings(providerId!, signal),
    enabled: providerId !== null,
    refetchOnMount: 'always',
  });
}
