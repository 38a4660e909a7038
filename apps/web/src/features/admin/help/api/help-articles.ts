import type { AdminHelpArticle, HelpArticleInput, HelpArticlePatch } from '@mi/contracts/help';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, apiRequest, ApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../../shared/components/reauth-provider';

type Answer = { message: string; data: AdminHelpArticle };
const base = '/api/admin/kb';
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;

/** GET /api/admin/kb: every help article, drafts included (admins only). */
export function useAdminHelpArticles() {
  return useQuery({
    queryKey: queryKeys.admin.helpArticles,
    queryFn: ({ signal }) => api.get<{ data: AdminHelpArticle[] }>(base, { signal }),
    select: (res) => res.data,
    refetchOnMount: 'always',
  });
}

export type HelpArticleChange =
  | { kind: 'create'; input: HelpArticleInput }
  | { kind: 'update'; id: string; input: HelpArticleInput }
  | { kind: 'patch'; id: string; patch: HelpArticlePatch }
  | { kind: 'delete'; id: string };

/** POST/PUT/PATCH/DELETE /api/admin/kb…: write, edit, publish or feature, delete. */
export function changeHelpArticle(change: HelpArticleChange): Promise<Answer | { message: string }> {
  switch (change.kind) {
    case 'create':
      return api.post<Answer>(base, change.input);
    case 'update':
      return api.put<Answer>(one(change.id), change.input);
    case 'patch':
      return apiRequest<Answer>('PATCH', one(change.id), { body: change.patch });
    case 'delete':
      return api.delete<{ message: string }>(one(change.id));
  }
}

/** Every change also refreshes what readers of the help centre see. */
export function useChangeHelpArticle() {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: (change: Parameters<typeof changeHelpArticle>[0]) =>
      withReauth(() => changeHelpArticle(change)),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.admin.helpArticles }),
        queryClient.invalidateQueries({ queryKey: queryKeys.kb.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.kb.counts }),
        queryClient.invalidateQueries({ queryKey: queryKeys.kb.categories }),
      ]),
  });
}

/**
 * POST /api/admin/kb/images: the file's own bytes (the API client sends JSON and forms only);
 * answers the URL the article shows the picture at.
 */
export async function uploadHelpImage(file: File): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${base}/images`, {
      method: 'POST',
      credentials: 'include',
      headers: { Accept: 'application/json', 'Content-Type': file.type || 'application/octet-stream' },
      body: file,
    });
  } catch {
    throw new ApiError(0, 'Network error: the server could not be reached.', undefined, undefined);
  }
  const body = (await res.json().catch(() => ({}))) as { url?: string; error?: string; code?: string };
  if (!res.ok || !body.url) {
    const fallback = res.status === 413 ? 'The picture is larger than 5 MB.' : undefined;
    throw new ApiError(res.status, `${res.status}: ${res.statusText}`, body.error ?? fallback, body.code);
  }
  return body.url;
}
