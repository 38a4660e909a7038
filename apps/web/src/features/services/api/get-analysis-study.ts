import type { AnalysisStudy } from '@mi/contracts/studies';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** GET /api/studies/{studyId}: the study as the Analysis services page shows it. */
export function getAnalysisStudy(studyId: string, signal?: AbortSignal): Promise<AnalysisStudy> {
  return api.get<AnalysisStudy>(`/api/studies/${encodeURIComponent(studyId)}`, { signal });
}

export function useAnalysisStudy(studyId: string | null) {
  return useQuery({
    queryKey: queryKeys.analysisStudy(studyId ?? ''),
    queryFn: ({ signal }) => getAnalysisStudy(studyId!, signal),
    enabled: Boolean(studyId),
  });
}
