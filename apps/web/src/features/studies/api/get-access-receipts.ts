import type { AccessReceipts } from '@mi/contracts/sharing';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/studies/{studyId}/access: who can open the owner's study and what was done with it. */
export function getAccessReceipts(studyId: string, signal?: AbortSignal): Promise<AccessReceipts> {
  return api.get<AccessReceipts>(`/api/studies/${encodeURIComponent(studyId)}/access`, { signal });
}

/** Read each time the 'Access & activity' dialog opens. */
export function useAccessReceipts(studyId: string | null) {
  return useQuery({
    queryKey: queryKeys.studyAccess(studyId ?? ''),
    queryFn: ({ signal }) => getAccessReceipts(studyId!, signal),
    enabled: studyId !== null,
    refetchOnMount: 'always',
  });
}
