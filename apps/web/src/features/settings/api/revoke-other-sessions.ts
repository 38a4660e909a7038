import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/auth/sessions/revoke-others: signs out every other device. */
export function revokeOtherSessions(): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/sessions/revoke-others');
}

export function useRevokeOtherSessions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeOtherSessions,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
  });
}
