import type { TransferStudyResponse } from '@mi/contracts/viewer';
import { api } from '@/lib/api-client';

/** POST /api/studies/transfer/{id}: prepares the study for the viewer. */
export function startStudyTransfer(studyId: string): Promise<TransferStudyResponse> {
  return api.post<TransferStudyResponse>(`/api/studies/transfer/${encodeURIComponent(studyId)}`);
}
