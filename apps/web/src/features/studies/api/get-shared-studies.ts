import type { SharedStudy } from '@mi/contracts/sharing';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/users/shares/targetUser/{userId}: the studies other people share with the user. */
export async function getSharedStudies(userId: string, signal?: AbortSignal): Promise<SharedStudy[]> {
  const res = await api.get<{ data: SharedStudy[] }>(
    `/api/users/shares/targetUser/${encodeURIComponent(userId)}`,
    { signal },
  );
  return res.data;
}

/** The Shared Studies tab's list, read again each time the tab is shown. */
export function useSharedStudies(userId: string) {
  return useQuery({
    queryKey: queryKeys.shares.sharedWithUser(userId),
    queryFn: ({ signal }) => getSharedStudies(userId, signal),
    refetchOnMount: 'always',
  });
}
