import type { OutboxMessage } from '@mi/contracts/admin';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/admin/outbox: mail the server has sent or queued (admins only). */
export async function getOutbox(signal?: AbortSignal): Promise<OutboxMessage[]> {
  const res = await api.get<{ data: OutboxMessage[] }>('/api/admin/outbox', { signal });
  return res.data;
}

export function outboxQueryOptions() {
  return queryOptions({ queryKey: queryKeys.admin.outbox, queryFn: ({ signal }) => getOutbox(signal) });
}

export function useOutbox() {
  return useQuery(outboxQueryOptions());
}
