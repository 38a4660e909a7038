import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/auth/email: a confirmation link goes to the new address; it changes when opened. */
export function changeEmail(newEmail: string): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/email', { newEmail });
}

export function useChangeEmail() {
  return useMutation({ mutationFn: changeEmail });
}
