import type { PublicConfig } from '@mi/contracts/auth';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** What the sign-in screens need before a user exists: captcha provider and Google client id. */
export function getPublicConfig(signal?: AbortSignal): Promise<PublicConfig> {
  return api.get<PublicConfig>('/api/config', { signal });
}

export function publicConfigQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.publicConfig,
    queryFn: ({ signal }) => getPublicConfig(signal),
  });
}

export function usePublicConfig() {
  return useQuery(publicConfigQueryOptions());
}
