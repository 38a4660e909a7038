import type { HelpArticleList } from '@mi/contracts/help';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { HELP_CACHE } from './help-cache';

export interface ArticlesQuery {
  category?: string;
  featured?: boolean;
  page: number;
  limit: number;
  q?: string;
}

/** GET /api/kb: one page of published articles of a category, the featured ones, or a search. */
export function getArticles(query: ArticlesQuery, signal?: AbortSignal): Promise<HelpArticleList> {
  return api.get<HelpArticleList>('/api/kb', { params: { ...query }, signal });
}

export function useArticles(query: ArticlesQuery) {
  return useQuery({
    queryKey: queryKeys.kb.list(query),
    queryFn: ({ signal }) => getArticles(query, signal),
    // The current page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
    ...HELP_CACHE,
  });
}
