import { defaultQuotaBytes } from '../accounts';
import type { StudiesRepository } from '../studies';
import { IngestError } from '../../dicom-archive/zip-reader';
import type { IngestRun } from './ingest-run';
import { senderNotification, skipReasonsText, successNotification } from './notify.stage';

/**
 * The reason given when an upload brought no instance at all; without the skipped files' names for
 * the log (a folder may be named after the patient).
 */
export function nothingFoundReason(run: IngestRun, withNames = true): string {
  const { summary } = run;
  const reasons = skipReasonsText(summary.skipReasons, undefined, withNames ? summary.skippedNames : {});
  return summary.files === 0
    ? 'The upload is empty: no files were found in the ZIP.'
    : `No DICOM images were found in your upload. ${summary.skipped} ${summary.skipped === 1 ? 'file was' : 'files were'} skipped${reasons ? ` (${reasons})` : ''}.`;
}

/**
 * Indexes everything the run found in one transaction (studies, series, instances, the quota charge,
 * the upload's completion and the notifications of its owner and of a shared upload's sender; see
 * StudiesRepository.commitIngest), then
 * records the summary. An IngestError when the upload brought no instance.
 */
export async function indexStage(
  run: IngestRun,
  deps: { repo: Pick<StudiesRepository, 'commitIngest' | 'setUploadSummary'>; defaultMaxStorageGB: number },
  /** Awaited last inside the transaction; a throw rolls it back (see IngestCommit.beforeCommit). */
  beforeCommit?: () => Promise<void>,
): Promise<void> {
  const { upload, summary, items } = run;
  if (items.length === 0) throw new IngestError(nothingFoundReason(run), nothingFoundReason(run, false));
  const started = Date.now();
  const studyCount = new Set(items.map((i) => i.header.studyInstanceUid)).size;
  await deps.repo.commitIngest({
    uploadId: upload.id,
    ownerId: upload.ownerId,
    defaultMaxBytes: defaultQuotaBytes(deps.defaultMaxStorageGB),
    items,
    summary: { ...summary },
    beforeCommit,
    notification: () => [
      successNotification(upload.ownerId, studyCount, summary, upload.uploadType === 'shared'),
      ...senderNotification(upload, {
        ok: true,
        studyCount,
        images: summary.instances + summary.unchanged,
      }),
    ],
  });
  summary.stages.index = Date.now() - started;
  summary.stages.total = Date.now() - run.startedAt;
  await deps.repo.setUploadSummary(upload.id, { ...summary });
  run.log.info(
    { uploadId: upload.id, instances: summary.instances, skipped: summary.skipped, stages: summary.stages },
    'upload processed',
  );
}
