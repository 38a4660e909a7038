import type { StudyListItem } from '@mi/contracts/studies';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * GET /api/studies/user/{userId}: the user's completed studies. No studies is an empty list; a
 * failure is shown as an error, never as an empty list (docs/spec-deviations.md).
 */
export async function getUserStudies(userId: string, signal?: AbortSignal): Promise<StudyListItem[]> {
  const res = await api.get<{ data: StudyListItem[] }>(`/api/studies/user/${encodeURIComponent(userId)}`, {
    signal,
  });
  return res.data;
}

export function userStudiesQueryOptions(userId: string) {
  return queryOptions({
    queryKey: queryKeys.userStudies.byUser(userId),
    queryFn: ({ signal }) => getUserStudies(userId, signal),
  });
}

/** The list is read again each time a page showing it is entered. */
export function useUserStudies(userId: string) {
  return useQuery({ ...userStudiesQueryOptions(userId), refetchOnMount: 'always' });
}
