import type { OrderDataNeed } from '@mi/contracts/fulfilment';
import type { OrderStatus } from '@mi/contracts/orders';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/orders/{id}/data-need: what the order's service reads and why its study does not do. */
export function getDataNeed(orderId: string, signal?: AbortSignal): Promise<OrderDataNeed> {
  return api.get<OrderDataNeed>(`/api/orders/${encodeURIComponent(orderId)}/data-need`, { signal });
}

export function useDataNeed(orderId: string) {
  return useQuery({
    queryKey: queryKeys.orderDataNeed(orderId),
    queryFn: ({ signal }) => getDataNeed(orderId, signal),
    refetchOnMount: 'always',
  });
}

export interface AttachResult {
  orderId: string;
  orderStatus: OrderStatus;
  studyId: string;
}

/** POST /api/orders/{id}/study: another of the user's studies for an order waiting for data. */
export function attachStudy({
  orderId,
  studyId,
}: {
  orderId: string;
  studyId: string;
}): Promise<AttachResult> {
  return api.post<AttachResult>(`/api/orders/${encodeURIComponent(orderId)}/study`, { studyId });
}

export function useAttachStudy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: attachStudy,
    // Success moves the order; a 409 means it had moved already: either way the list is read again.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.purchases.all }),
  });
}
