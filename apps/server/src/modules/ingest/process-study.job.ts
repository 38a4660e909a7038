import type { Logger } from 'pino';
import { defineJob } from '../../jobs/queue';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { MailService } from '../mail';
import type { UploadArea } from '../uploads';
import type { UsersRepository } from '../accounts';
import type { ArchivePrescan } from './archive-prescan';
import { QuotaExceededError, quotaGB } from '../accounts';
import { PROCESS_STUDY, type StudiesRepository, type UploadRow } from '../studies';
import { DEFAULT_ZIP_LIMITS, IngestError, type ZipLimits } from '../../dicom-archive/zip-reader';
import { runIngest } from './ingest-pipeline';
import { failureNotification, notifyByEmail, senderNotification } from './notify.stage';
import { reconcile } from './store.stage';

interface Deps {
  repo: StudiesRepository;
  storage: ObjectStorage;
  uploadArea: UploadArea;
  users: UsersRepository;
  mail: MailService;
  appUrl: string;
  defaultMaxStorageGB: number;
  zipLimits?: Partial<ZipLimits>;
  /** Decoded image size an instance may declare (see pixel-budget.ts). */
  maxDecodedBytes?: number;
  retryLimit?: number;
  /** Entries already read while the upload arrived (file uploads only). */
  prescan?: ArchivePrescan;
}

/** Why an upload failed, as its owner is told; undefined for errors worth retrying. */
function failureReason(err: unknown): string | undefined {
  if (err instanceof IngestError) return err.message;
  if (err instanceof QuotaExceededError)
    return `Storage Limit Exceeded: this upload would exceed your storage limit of ${quotaGB(err.maxBytes)} GB.`;
  return undefined;
}

/**
 * process-study: turns one uploaded ZIP into indexed studies, through the stages composed in
 * ingest-pipeline.ts. Idempotent: object keys depend only on the upload and the SOP Instance UID,
 * every key is recorded before it is written, and one transaction indexes everything at the end;
 * whatever a failed or crashed run wrote and nothing indexes is deleted (on failure, on the retry's
 * completion, or by the stale-upload sweep).
 */
export function processStudyJob(deps: Deps) {
  const retryLimit = deps.retryLimit ?? 3;
  const ingestDeps = { ...deps, limits: { ...DEFAULT_ZIP_LIMITS, ...deps.zipLimits } };

  /** `logged`: the reason as the log may say it (IngestError.loggedMessage). */
  async function fail(upload: UploadRow, reason: string, log: Logger, logged = reason) {
    await deps.repo.failUpload(upload.id, reason, {}, [
      failureNotification(upload.ownerId, reason),
      ...senderNotification(upload, { ok: false, reason }),
    ]);
    await reconcile(deps, upload.id);
    await deps.uploadArea.remove(upload.objectName);
    await notifyByEmail(deps, upload.ownerId, false);
    log.info({ uploadId: upload.id, reason: logged }, 'upload failed');
  }

  /** After the indexing transaction: drop unindexed objects and the ZIP, send the email. Safe to repeat. */
  async function finish(upload: UploadRow, firstTime: boolean) {
    await reconcile(deps, upload.id);
    await deps.uploadArea.remove(upload.objectName);
    if (firstTime) await notifyByEmail(deps, upload.ownerId, true);
  }

  const job = defineJob({
    ...PROCESS_STUDY,
    retry: { limit: retryLimit, delaySeconds: 10 },
    // Small uploads spend most of their time waiting on the index transaction and fsyncs; two per
    // process overlap those (bench/README.md, ingest at scale). Uploads of one owner are charged one
    // after the other (commitIngest locks the owner's row).
    concurrency: 2,
    async handler({ uploadId }, { log }) {
      const upload = await deps.repo.findUpload(uploadId);
      if (!upload || upload.status === 'failed') return;
      if (upload.status === 'completed') {
        // A run that died after committing: only the clean-up is left.
        await finish(upload, false);
        return;
      }
      const attempt = await deps.repo.markProcessing(upload.id);
      try {
        await runIngest(ingestDeps, upload, log);
        await finish(upload, true);
      } catch (err) {
        const reason = failureReason(err);
        if (reason !== undefined)
          return fail(upload, reason, log, err instanceof IngestError ? err.loggedMessage : reason);
        await reconcile(deps, upload.id);
        if (attempt > retryLimit) {
          log.error({ err }, 'processing failed on every attempt');
          return fail(
            upload,
            'The upload could not be processed because of an error on our side. Please try again later.',
            log,
          );
        }
        throw err;
      }
    },
  });
  return Object.assign(job, {
    /** Ends an upload whose processing keeps getting lost: marks it failed, tells the owner, cleans up. */
    abandon: (upload: UploadRow, reason: string, log: Logger) => fail(upload, reason, log),
  });
}
export type ProcessStudyJob = ReturnType<typeof processStudyJob>;
