import type { ProfessionalApplication } from '@mi/contracts/admin';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

export type ApplicationStatusFilter = 'pending' | 'active' | 'rejected' | 'all';

/** GET /api/admin/professionals?status=: medical professional applications (admins only). */
export async function getProfessionals(
  status: ApplicationStatusFilter,
  signal?: AbortSignal,
): Promise<ProfessionalApplication[]> {
  return (
    await api.get<{ data: ProfessionalApplication[] }>('/api/admin/professionals', {
      params: { status },
      signal,
    })
  ).data;
}

export function professionalsQueryOptions(status: ApplicationStatusFilter) {
  return queryOptions({
    queryKey: queryKeys.admin.professionals.byStatus(status),
    queryFn: ({ signal }) => getProfessionals(status, signal),
  });
}

export function useProfessionals(status: ApplicationStatusFilter) {
  return useQuery(professionalsQueryOptions(status));
}
