import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/auth/reset-password. */
export function resetPassword(body: {
  newPassword: string;
  challenge: string;
  email: string;
}): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/reset-password', body);
}

export function useResetPassword() {
  return useMutation({ mutationFn: resetPassword });
}
