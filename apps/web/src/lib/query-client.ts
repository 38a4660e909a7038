import { QueryClient, type QueryFunction } from '@tanstack/react-query';
import { api, type QueryParams } from './api-client';

/**
 * The default read: GET the URL the query key spells. String/number segments are joined with
 * '/', so ['/api/studies/user', id] reads /api/studies/user/{id}; a trailing object is the query string.
 */
export const defaultQueryFn: QueryFunction = ({ queryKey, signal }) => {
  const segments: string[] = [];
  let params: QueryParams | undefined;
  for (const part of queryKey) {
    if (typeof part === 'string' || typeof part === 'number') segments.push(String(part));
    else if (part && typeof part === 'object') params = part as QueryParams;
  }
  return api.get(segments.join('/'), { params, signal });
};

/** No retries, no refetch on focus or interval, data never stale. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: defaultQueryFn,
        retry: false,
        refetchOnWindowFocus: false,
        refetchInterval: false,
        staleTime: Infinity,
      },
      mutations: { retry: false },
    },
  });
}
