import type { ViewerUrlResponse } from '@mi/contracts/viewer';
import { api } from '@/lib/api-client';

/** GET /api/dicom/viewer/{studyId}: the address that opens the study in the viewer. */
export function getViewerUrl(studyId: string): Promise<ViewerUrlResponse> {
  return api.get<ViewerUrlResponse>(`/api/dicom/viewer/${encodeURIComponent(studyId)}`);
}
