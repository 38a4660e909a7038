import type { InviteLink } from '@mi/contracts/sharing';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/invitations/link: the user's invite link (the server makes one on first ask). */
export function inviteLinkQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.inviteLink,
    queryFn: ({ signal }) => api.get<InviteLink>('/api/invitations/link', { signal }),
  });
}

export function useInviteLink() {
  return useQuery(inviteLinkQueryOptions());
}

/** POST /api/invitations/link: revokes the current link and issues a new one. */
export function renewInviteLink(): Promise<InviteLink> {
  return api.post<InviteLink>('/api/invitations/link');
}

export function useRenewInviteLink() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: renewInviteLink,
    onSuccess: (link) => queryClient.setQueryData(queryKeys.inviteLink, link),
  });
}
