import type { Purchase } from '@mi/contracts/orders';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * GET /api/purchases/user/{userId}: the user's purchases, newest first. No purchases is an empty
 * list; a failure (404 'No purchases found for this user' answers only another user's id) is shown
 * as an error, never as an empty list (docs/spec-deviations.md).
 */
export function getPurchases(userId: string, signal?: AbortSignal): Promise<Purchase[]> {
  return api.get<Purchase[]>(`/api/purchases/user/${encodeURIComponent(userId)}`, { signal });
}

export function usePurchases(userId: string) {
  return useQuery({
    queryKey: queryKeys.purchases.byUser(userId),
    queryFn: ({ signal }) => getPurchases(userId, signal),
    refetchOnMount: 'always',
  });
}
