import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** DELETE /api/auth/sessions/{id}: signs one of your devices out. */
export function revokeSession(id: string): Promise<{ message: string }> {
  return api.delete<{ message: string }>(`/api/auth/sessions/${encodeURIComponent(id)}`);
}

export function useRevokeSession() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeSession,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.sessions }),
  });
}
