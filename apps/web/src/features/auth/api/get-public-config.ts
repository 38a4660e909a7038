import type { PublicConfig } from '@mi/contracts/auth';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const PUBLIC_CONFIG_QUERY_KEY = ['/api/config'] as const;

/** What the sign-in screens need before a user exists: captcha provider and Google client id. */
export function getPublicConfig(signal?: AbortSignal): Promise<PublicConfig> {
  return api.get<PublicConfig>('/api/config', { signal });
}

export function publicConfigQueryOptions() {
  return queryOptions({
    queryKey: PUBLIC_CONFIG_QUERY_KEY,
    queryFn: ({ signal }) => getPublicConfig(signal),
  });
}

export function usePublicConfig() {
  return useQuery(publicConfigQueryOptions());
}
