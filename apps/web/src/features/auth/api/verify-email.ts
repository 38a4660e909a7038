import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/auth/verify-email with the link's token. A query, so the single-use token is sent once. */
export function verifyEmail(token: string): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/verify-email', { token });
}

export function useVerifyEmail(token: string) {
  return useQuery(
    queryOptions({
      queryKey: queryKeys.verifyEmail(token),
      queryFn: () => verifyEmail(token),
      enabled: Boolean(token),
    }),
  );
}
