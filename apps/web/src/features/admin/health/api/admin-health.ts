import type { AdminHealth } from '@mi/contracts/admin';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/admin/health. */
export function useAdminHealth() {
  return useQuery({
    queryKey: queryKeys.admin.health,
    queryFn: ({ signal }) => api.get<AdminHealth>('/api/admin/health', { signal }),
  });
}
