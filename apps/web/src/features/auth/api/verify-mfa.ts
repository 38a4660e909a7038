import type { MfaVerifyBody, MfaVerifyResponse } from '@mi/contracts/auth';
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/mfa/verify: the browser's pending-login cookie goes with it; the server sets the session cookies. */
export function verifyMfa(body: MfaVerifyBody): Promise<MfaVerifyResponse> {
  return api.post<MfaVerifyResponse>('/api/mfa/verify', body);
}

export function useVerifyMfa() {
  return useMutation({ mutationFn: verifyMfa });
}
