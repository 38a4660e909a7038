import type { SessionInfo } from '@mi/contracts/auth';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/auth/sessions: the signed-in user's active sessions. */
export async function getSessions(signal?: AbortSignal): Promise<SessionInfo[]> {
  return (await api.get<{ data: SessionInfo[] }>('/api/auth/sessions', { signal })).data;
}

export function sessionsQueryOptions() {
  return queryOptions({ queryKey: queryKeys.sessions, queryFn: ({ signal }) => getSessions(signal) });
}

export function useSessions() {
  return useQuery(sessionsQueryOptions());
}
