import type { User } from '@mi/contracts/auth';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * The only source of "am I signed in": the session cookies are httpOnly, so the SPA asks the
 * server. UNAUTHORIZED means signed out (null); any other failure is an error.
 */
export async function getMe(signal?: AbortSignal): Promise<User | null> {
  try {
    return await api.get<User>('/api/auth/me', { signal });
  } catch (err) {
    if (isApiError(err, 'UNAUTHORIZED')) return null;
    throw err;
  }
}

export function meQueryOptions() {
  return queryOptions({ queryKey: queryKeys.me, queryFn: ({ signal }) => getMe(signal) });
}

export function useMe() {
  return useQuery(meQueryOptions());
}

/** The signed-in user; only for components rendered behind the signed-in guard. */
export function useCurrentUser(): User {
  const { data } = useMe();
  if (!data) throw new Error('useCurrentUser used outside the signed-in area');
  return data;
}
