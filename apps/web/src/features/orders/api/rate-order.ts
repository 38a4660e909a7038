import type { OrderRating, RatingBody } from '@mi/contracts/directory';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** PUT /api/orders/{id}/rating: the buyer's 1-5 stars (and comment) for a completed order of theirs. */
export function rateOrder({
  orderId,
  rating,
}: {
  orderId: string;
  rating: RatingBody;
}): Promise<OrderRating> {
  return api.put<OrderRating>(`/api/orders/${encodeURIComponent(orderId)}/rating`, rating);
}

export function useRateOrder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: rateOrder,
    // The order shows its stars; the provider's mean (and its ratings list, under the directory's
    // key) changes in the directory and the catalogue.
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.purchases.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.providers }),
        queryClient.invalidateQueries({ queryKey: queryKeys.userProviders }),
        queryClient.invalidateQueries({ queryKey: queryKeys.services }),
      ]),
  });
}
