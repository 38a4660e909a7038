import type { StudyListItem } from '@mi/contracts/studies';
import { queryOptions, usePrefetchQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
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

/**
 * The list is read again each time a page showing it is entered. With nothing cached yet, the
 * request is sent while the page renders rather than once it is shown: a page that has just been
 * loaded is shown up to 300 ms after it rendered (React reveals what a Suspense spinner stood for
 * at that pace), and a list of thousands of studies takes that long to come.
 */
export function useUserStudies(userId: string) {
  const [enteredAt] = useState(() => Date.now());
  usePrefetchQuery(userStudiesQueryOptions(userId));
  return useQuery({
    ...userStudiesQueryOptions(userId),
    // Not twice, though: a list that arrived since the page began rendering is read already.
    refetchOnMount: (query) => (query.state.dataUpdatedAt < enteredAt ? 'always' : false),
  });
}
