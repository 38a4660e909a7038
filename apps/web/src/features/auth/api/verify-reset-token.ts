import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/auth/verifyResetToken → isValid. Read as a query so it runs once per link. */
export function verifyResetToken(email: string, challenge: string): Promise<{ isValid: boolean }> {
  return api.post<{ isValid: boolean }>('/api/auth/verifyResetToken', { email, challenge });
}

export function verifyResetTokenQueryOptions(email: string, challenge: string) {
  return queryOptions({
    queryKey: queryKeys.verifyResetToken(email, challenge),
    queryFn: () => verifyResetToken(email, challenge),
    gcTime: 0,
  });
}

export function useVerifyResetToken(email: string, challenge: string) {
  return useQuery({
    ...verifyResetTokenQueryOptions(email, challenge),
    enabled: Boolean(email && challenge),
  });
}
