import type { Purchase } from '@mi/contracts/orders';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/purchases/user/{userId}: the user's purchases, newest first. */
export async function getPurchases(userId: string, signal?: AbortSignal): Promise<Purchase[]> {
  try {
    return await api.get<Purchase[]>(`/api/purchases/user/${encodeURIComponent(userId)}`, { signal });
  } catch (err) {
    // This answer means an empty list, not a failure.
    if (err instanceof ApiError && err.serverMessage === 'No purchases found for this user') return [];
    throw err;
  }
}

export function usePurchases(userId: string) {
  return useQuery({
    queryKey: queryKeys.purchases.byUser(userId),
    queryFn: ({ signal }) => getPurchases(userId, signal),
    refetchOnMount: 'always',
  });
}
