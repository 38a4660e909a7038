import type { TotpConfirmResponse } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/mfa/totp/confirm {code}: turns the authenticator on; recovery codes come back once. */
export function confirmTotp(code: string): Promise<TotpConfirmResponse> {
  return api.post<TotpConfirmResponse>('/api/mfa/totp/confirm', { code });
}

export function useConfirmTotp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: confirmTotp,
    onSuccess: (res) => queryClient.setQueryData(queryKeys.me, res.user),
  });
}
