import type { InvitationCheck } from '@mi/contracts/sharing';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/invitations/check: whether an invite link's token is live, whose it is and the room left. */
export function useInvitationCheck(token: string | null) {
  return useQuery({
    queryKey: queryKeys.invitationCheck(token ?? ''),
    queryFn: ({ signal }) =>
      api.get<InvitationCheck>('/api/invitations/check', { params: { token: token! }, signal }),
    enabled: Boolean(token),
    // Re-checked on each visit: a link may be revoked or expire meanwhile.
    staleTime: 0,
  });
}
