import type { DeliverReportBody, ProfessionalOrder, ReportDraft } from '@mi/contracts/fulfilment';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

const orderPath = (id: string, tail = '') => `/api/professional/orders/${encodeURIComponent(id)}${tail}`;

/** GET /api/professional/orders: orders sent to the providers linked to this professional. */
export function useProfessionalOrders() {
  return useQuery({
    queryKey: queryKeys.professionalOrders,
    queryFn: ({ signal }) => api.get<ProfessionalOrder[]>('/api/professional/orders', { signal }),
    refetchOnMount: 'always',
  });
}

function useOrderMutation<T>(fn: (vars: T) => Promise<ProfessionalOrder>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.professionalOrders }),
  });
}

export const useAcceptOrder = () =>
  useOrderMutation((id: string) => api.post<ProfessionalOrder>(orderPath(id, '/accept')));

export const useDeclineOrder = () =>
  useOrderMutation(({ id, reason }: { id: string; reason?: string }) =>
    api.post<ProfessionalOrder>(orderPath(id, '/decline'), reason ? { reason } : {}),
  );

export const useSaveReport = () =>
  useOrderMutation(({ id, draft }: { id: string; draft: ReportDraft }) =>
    api.put<ProfessionalOrder>(orderPath(id, '/report'), draft),
  );

export const useDeliverReport = () =>
  useOrderMutation(({ id, report }: { id: string; report: DeliverReportBody }) =>
    api.post<ProfessionalOrder>(orderPath(id, '/deliver'), report),
  );
