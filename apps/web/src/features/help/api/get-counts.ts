import type { HelpCounts } from '@mi/contracts/help';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { HELP_CACHE } from './help-cache';

/** GET /api/kb/counts: featured articles and articles per category (in the help centre's order). */
export function getCounts(signal?: AbortSignal): Promise<HelpCounts> {
  return api.get<HelpCounts>('/api/kb/counts', { signal });
}

export function useHelpCounts() {
  return useQuery({
    queryKey: queryKeys.kb.counts,
    queryFn: ({ signal }) => getCounts(signal),
    ...HELP_CACHE,
  });
}
