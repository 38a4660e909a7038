import type { AdminProvider } from '@mi/contracts/sharing';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * GET /api/admin/providers: the whole directory, retired entries last (admins only). The directory lists and changes them; the
 * catalogue offers services from them.
 */
export function useAdminProviders() {
  return useQuery({
    queryKey: queryKeys.admin.providers,
    queryFn: ({ signal }) => api.get<{ data: AdminProvider[] }>('/api/admin/providers', { signal }),
    select: (res) => res.data,
  });
}
