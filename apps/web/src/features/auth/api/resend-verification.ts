import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/auth/verify-email/resend: a new verification link for the signed-in user. */
export function resendVerification(): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/verify-email/resend');
}

export function useResendVerification() {
  return useMutation({ mutationFn: resendVerification });
}
