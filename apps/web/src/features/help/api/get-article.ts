import type { HelpArticle } from '@mi/contracts/help';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { HELP_CACHE } from './help-cache';

/** GET /api/kb/{id}: a published article (404 'Article Not Found' otherwise). */
export function getArticle(id: string, signal?: AbortSignal): Promise<HelpArticle> {
  return api.get<HelpArticle>(`/api/kb/${encodeURIComponent(id)}`, { signal });
}

export function useArticle(id: string) {
  return useQuery({
    queryKey: queryKeys.kb.article(id),
    queryFn: ({ signal }) => getArticle(id, signal),
    ...HELP_CACHE,
  });
}
