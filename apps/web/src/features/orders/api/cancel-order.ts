import type { Purchase } from '@mi/contracts/orders';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/orders/{id}/cancel: cancels an order still waiting for payment. */
export function cancelOrder(id: string): Promise<Purchase> {
  return api.post<Purchase>(`/api/orders/${encodeURIComponent(id)}/cancel`);
}

export function useCancelOrder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelOrder,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.purchases.all }),
  });
}
