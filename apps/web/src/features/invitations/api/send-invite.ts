import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/invite: emails an invitation to upload studies into the signed-in user's account. */
export function sendInvite(email: string): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/invite', { email });
}

export function useSendInvite() {
  return useMutation({ mutationFn: sendInvite });
}
