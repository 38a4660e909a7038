import type { TotpSetupResponse } from '@mi/contracts/auth';
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/mfa/totp/setup: a new authenticator secret and its QR code (pending until confirmed). */
export function setupTotp(): Promise<TotpSetupResponse> {
  return api.post<TotpSetupResponse>('/api/mfa/totp/setup');
}

export function useSetupTotp() {
  return useMutation({ mutationFn: setupTotp });
}
