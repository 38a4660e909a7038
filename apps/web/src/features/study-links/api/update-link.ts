import type { LinkSummary, UpdateLinkRequest } from '@mi/contracts/links';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** PATCH /api/studies/links/{id}: pause, resume or a new expiry. */
export function updateLink(id: string, body: UpdateLinkRequest): Promise<LinkSummary> {
  return apiRequest<LinkSummary>('PATCH', `/api/studies/links/${encodeURIComponent(id)}`, { body });
}

/** DELETE /api/studies/links/{id}: ends the link for good (204). */
export function revokeLink(id: string): Promise<void> {
  return apiRequest<void>('DELETE', `/api/studies/links/${encodeURIComponent(id)}`);
}

/** Pause, resume or extend a link; every list of links is read again afterwards. */
export function useUpdateLink() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateLinkRequest }) => updateLink(id, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.studyLinks.all }),
  });
}

/** Revoke a link; every list of links is read again afterwards. */
export function useRevokeLink() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeLink,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.studyLinks.all }),
  });
}
