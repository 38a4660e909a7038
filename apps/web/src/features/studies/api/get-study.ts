import type { Study } from '@mi/contracts/studies';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/studies/study/{id}: one study with every indexed detail (the list carries fewer). */
export async function getStudy(studyId: string, signal?: AbortSignal): Promise<Study> {
  const res = await api.get<{ data: Study }>(`/api/studies/study/${encodeURIComponent(studyId)}`, { signal });
  return res.data;
}

/** The study's details while `studyId` is set (e.g. while its Info dialog is open); read on each opening. */
export function useStudy(studyId: string | null) {
  return useQuery({
    queryKey: queryKeys.study(studyId ?? ''),
    queryFn: ({ signal }) => getStudy(studyId!, signal),
    enabled: studyId !== null,
    refetchOnMount: 'always',
  });
}
