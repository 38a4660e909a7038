import type { ResetPasswordBody } from '@mi/contracts/auth';
import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/auth/reset-password. */
export function resetPassword(body: ResetPasswordBody): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/reset-password', body);
}

export function useResetPassword() {
  return useMutation({ mutationFn: resetPassword });
}
