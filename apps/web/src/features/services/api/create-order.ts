import type { CreateOrderBody, Purchase } from '@mi/contracts/orders';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/orders: an order of an analysis that waits for payment on /billing. */
export function createOrder(body: CreateOrderBody): Promise<Purchase> {
  return api.post<Purchase>('/api/orders', body);
}

export function useCreateOrder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createOrder,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.purchases.all }),
  });
}
