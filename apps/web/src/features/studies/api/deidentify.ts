import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** POST /api/studies/{id}/deidentified-copy: the copy is made by a job and appears in My Studies. */
export function useMakeDeidentifiedCopy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (studyId: string) =>
      api.post<{ jobId: string }>(`/api/studies/${encodeURIComponent(studyId)}/deidentified-copy`, {}),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.userStudies.all }),
  });
}

/** The de-identified files as a ZIP, made while it downloads (no resume: every download is new). */
export function downloadDeidentified(studyId: string): void {
  const link = document.createElement('a');
  link.href = `/api/studies/download/${encodeURIComponent(studyId)}?deidentified=1`;
  link.download = `study-${studyId}-deidentified.zip`;
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
}
