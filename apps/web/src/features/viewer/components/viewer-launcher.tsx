import { useState } from 'react';
import { useViewerLaunch } from '../hooks/use-viewer-launch';
import { ViewerPreparation } from './viewer-preparation';

/** Prepares the study, then opens it in the viewer; 'Try again' starts a new attempt. */
export function ViewerLauncher({ studyId, userId }: { studyId: string | undefined; userId: string }) {
  const [attempt, setAttempt] = useState(0);
  const state = useViewerLaunch(studyId, userId, attempt);
  return <ViewerPreparation state={state} onRetry={() => setAttempt((n) => n + 1)} />;
}
