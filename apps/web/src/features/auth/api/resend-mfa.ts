import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/mfa/resend: a new emailed code for the pending sign-in. */
export function resendMfa(email: string): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/mfa/resend', { email });
}

export function useResendMfa() {
  return useMutation({ mutationFn: resendMfa });
}
