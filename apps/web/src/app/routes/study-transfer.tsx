import { useState } from 'react';
import { useParams } from 'react-router';
import { useDocumentTitle } from '@/components/page-header';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { ViewerPreparation } from '@/features/viewer/components/viewer-preparation';
import { useViewerLaunch } from '@/features/viewer/hooks/use-viewer-launch';

/** /studies/transfer/:studyId (spec §2): prepares the study, then opens it in the viewer. */
export default function StudyTransferRoute() {
  useDocumentTitle('Study Viewer');
  const { studyId } = useParams();
  const user = useCurrentUser();
  const [attempt, setAttempt] = useState(0);
  const state = useViewerLaunch(studyId, user.id, attempt);
  return <ViewerPreparation state={state} onRetry={() => setAttempt((n) => n + 1)} />;
}
