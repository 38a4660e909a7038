import { useMutation } from '@tanstack/react-query';
import { apiRaw } from '@/lib/api-client';

export const studyDownloadUrl = (studyId: string) => `/api/studies/download/${encodeURIComponent(studyId)}`;

/**
 * GET /api/studies/download/{studyId}, saved as study-{id}.zip. A one-byte ranged request first
 * proves the archive is available (so a failure can be shown in the page); the browser then
 * downloads it through a link, streaming to disk instead of holding the archive in memory.
 */
export async function downloadStudy(studyId: string): Promise<void> {
  const controller = new AbortController();
  const res = await apiRaw('GET', studyDownloadUrl(studyId), {
    headers: { Range: 'bytes=0-0', Accept: 'application/zip' },
    signal: controller.signal,
  });
  // Only the status mattered; a server that ignored the range must not send the whole archive.
  controller.abort();
  await res.body?.cancel().catch(() => undefined);

  const link = document.createElement('a');
  link.href = studyDownloadUrl(studyId);
  link.download = `study-${studyId}.zip`;
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
}

export function useDownloadStudy() {
  return useMutation({ mutationFn: downloadStudy });
}
