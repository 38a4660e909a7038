import type { Service } from '@mi/contracts/orders';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/services: the catalogue, each service with its providers and their prices. */
export function getServices(signal?: AbortSignal): Promise<Service[]> {
  return api.get<Service[]>('/api/services', { signal });
}

export function useServices() {
  return useQuery({
    queryKey: queryKeys.services,
    queryFn: ({ signal }) => getServices(signal),
    refetchOnMount: 'always',
  });
}
