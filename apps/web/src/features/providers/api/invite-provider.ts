import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** POST /api/providers/invite {to}: emails a healthcare provider an invitation to join. */
export function inviteProvider(to: string): Promise<{ message: string }> {
  return api.post('/api/providers/invite', { to });
}

export function useInviteProvider() {
  return useMutation({ mutationFn: inviteProvider });
}
