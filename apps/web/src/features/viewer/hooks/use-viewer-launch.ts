import { useEffect, useState } from 'react';
import { toastError } from '@/hooks/use-toast';
import { ApiError, isApiError } from '@/lib/api-client';
import { getStudyForViewer, pendingTransferCount } from '../api/get-transfer-state';
import { getViewerUrl } from '../api/get-viewer-url';
import { startStudyTransfer } from '../api/start-study-transfer';

export type LaunchState = { kind: 'preparing' } | { kind: 'not-found' } | { kind: 'failed'; message: string };

/** How often preparation is checked while it runs. */
export const TRANSFER_POLL_MS = 1000;
/** Preparation that has not finished by then is reported as failed. */
const TRANSFER_TIMEOUT_MS = 10 * 60_000;

/** A failure that already carries the text to show the user. */
class LaunchError extends Error {}

const serverMessage = (err: unknown) => (err instanceof ApiError ? err.serverMessage : undefined);

async function viewerAddress(studyId: string): Promise<string> {
  try {
    return (await getViewerUrl(studyId)).url;
  } catch (err) {
    throw new LaunchError(serverMessage(err) || 'Failed to fetch viewer URL.');
  }
}

/**
 * Viewer launch: a prepared study opens at once; otherwise a transfer is queued, the page
 * waits until no transfer-study job of the user is pending, reads the study again and opens the
 * viewer if it is now prepared. Failures toast and end the wait.
 */
export function useViewerLaunch(studyId: string | undefined, userId: string, attempt: number): LaunchState {
  const [state, setState] = useState<LaunchState>({ kind: 'preparing' });

  useEffect(() => {
    let cancelled = false;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    setState({ kind: 'preparing' });

    async function run() {
      if (!studyId) throw new LaunchError('Study ID is not available.');
      let study;
      try {
        study = await getStudyForViewer(studyId);
      } catch (err) {
        if (isApiError(err, 'NOT_FOUND')) return setState({ kind: 'not-found' });
        throw err;
      }
      if (study.status.transfer.value !== 'completed') {
        try {
          await startStudyTransfer(studyId);
        } catch (err) {
          throw new LaunchError(serverMessage(err) || 'Cannot start transfer');
        }
        const deadline = Date.now() + TRANSFER_TIMEOUT_MS;
        for (;;) {
          if (cancelled) return;
          if (Date.now() > deadline) throw new LaunchError('Failed to open the viewer');
          if ((await pendingTransferCount(userId)) === 0) {
            study = await getStudyForViewer(studyId);
            if (study.status.transfer.value === 'completed') break;
            // Still being prepared by a job another user queued (the owner, or a recipient of the
            // same shared study): wait for the study itself.
            if (study.status.transfer.value === 'failed' || study.status.transfer.value === null)
              throw new LaunchError('Failed to open the viewer');
          }
          await sleep(TRANSFER_POLL_MS);
        }
      }
      const url = await viewerAddress(studyId);
      if (cancelled) return;
      // Replace this page: Back should not land on a page that reopens the viewer.
      window.location.replace(url);
    }

    run().catch((err: unknown) => {
      if (cancelled) return;
      const message = err instanceof LaunchError ? err.message : serverMessage(err) || 'Unhandled exception';
      toastError(message);
      setState({ kind: 'failed', message });
    });
    return () => {
      cancelled = true;
    };
  }, [studyId, userId, attempt]);

  return state;
}
