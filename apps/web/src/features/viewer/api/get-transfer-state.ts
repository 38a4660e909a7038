import type { PendingJobs, Study } from '@mi/contracts/studies';
import { api } from '@/lib/api-client';

/** GET /api/studies/study/{id}: the study, for its transfer status. */
export async function getStudyForViewer(studyId: string): Promise<Study> {
  return (await api.get<{ data: Study }>(`/api/studies/study/${encodeURIComponent(studyId)}`)).data;
}

/** GET /api/jobs/pending/{userId}: how many transfer-study jobs of the user are still pending. */
export async function pendingTransferCount(userId: string): Promise<number> {
  const jobs = await api.get<PendingJobs>(`/api/jobs/pending/${encodeURIComponent(userId)}`);
  return jobs.jobs.filter((j) => j.name === 'transfer-study').length;
}
