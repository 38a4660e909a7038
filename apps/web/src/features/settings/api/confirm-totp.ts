import type { TotpConfirmResponse } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { ME_KEY } from './update-user';

/** POST /api/mfa/totp/confirm {code}: turns the authenticator on; recovery codes come back once. */
export function confirmTotp(code: string): Promise<TotpConfirmResponse> {
  return api.post<TotpConfirmResponse>('/api/mfa/totp/confirm', { code });
}

export function useConfirmTotp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: confirmTotp,
    onSuccess: (res) => queryClient.setQueryData(ME_KEY, res.user),
  });
}
