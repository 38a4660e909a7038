import type { CreatedLink, CreateLinkRequest } from '@mi/contracts/links';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/studies/links: a new link for one or more of the user's studies. */
export function createLink(body: CreateLinkRequest): Promise<CreatedLink> {
  return api.post<CreatedLink>('/api/studies/links', body);
}

/** Creates a link; the Links page and each study's links are read again afterwards. */
export function useCreateLink() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createLink,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.studyLinks.all }),
  });
}
