import type { User } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * PUT /api/users/{id} with `shareMedicalData: true`: the owner's consent to sharing, given from the
 * Share dialog (the same setting as Settings → Privacy & Sharing → Share Medical Records).
 */
export function allowSharing(userId: string): Promise<User> {
  return api.put<User>(`/api/users/${encodeURIComponent(userId)}`, { shareMedicalData: true });
}

export function useAllowSharing() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: allowSharing,
    onSuccess: (user) => queryClient.setQueryData(queryKeys.me, user),
  });
}
