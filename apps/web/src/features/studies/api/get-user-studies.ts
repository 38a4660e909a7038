import type { StudyListItem } from '@mi/contracts/studies';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, ApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/studies/user/{userId}: the user's completed studies. */
export async function getUserStudies(userId: string, signal?: AbortSignal): Promise<StudyListItem[]> {
  try {
    const res = await api.get<{ data: StudyListItem[] }>(`/api/studies/user/${encodeURIComponent(userId)}`, {
      signal,
    });
    return res.data;
  } catch (err) {
    // This answer means an empty list, not a failure.
    if (err instanceof ApiError && err.serverMessage === 'No studies found for this user') return [];
    throw err;
  }
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
