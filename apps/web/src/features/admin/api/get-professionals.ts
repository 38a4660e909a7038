import type { ProfessionalApplication } from '@mi/contracts/admin';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export type ApplicationStatusFilter = 'pending' | 'active' | 'rejected' | 'all';
export const PROFESSIONALS_QUERY_KEY = ['/api/admin/professionals'] as const;

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
    queryKey: [...PROFESSIONALS_QUERY_KEY, { status }],
    queryFn: ({ signal }) => getProfessionals(status, signal),
  });
}

export function useProfessionals(status: ApplicationStatusFilter) {
  return useQuery(professionalsQueryOptions(status));
}
