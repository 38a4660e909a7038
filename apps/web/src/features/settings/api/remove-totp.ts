import type { User } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** DELETE /api/mfa/totp: forgets the authenticator app; emailed codes take over. */
export function removeTotp(): Promise<User> {
  return api.delete<User>('/api/mfa/totp');
}

export function useRemoveTotp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeTotp,
    onSuccess: (user) => queryClient.setQueryData(queryKeys.me, user),
  });
}
