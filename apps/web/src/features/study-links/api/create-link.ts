import type { CreatedLink, CreateLinkRequest, PendingLink } from '@mi/contracts/links';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * POST /api/studies/links: a new link for one or more of the user's studies. A de-identified link
 * whose copies are still being made answers `pending` (202); it appears on the Links page when ready.
 */
export function createLink(body: CreateLinkRequest): Promise<CreatedLink | PendingLink> {
  return api.post<CreatedLink | PendingLink>('/api/studies/links', body);
}

/** Creates a link; the Links page and each study's links are read again afterwards. */
export function useCreateLink() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createLink,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.studyLinks.all }),
  });
}
