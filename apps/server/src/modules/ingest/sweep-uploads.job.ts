import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineJob, type JobQueue } from '../../jobs/queue';
import type { ProcessStudyJob } from './process-study.job';
import type { StudiesRepository } from '../studies';
import type { UploadArea } from '../uploads';

/** An upload still queued or processing this long after it was handed over, with no live job, was lost. */
export const LOST_AFTER_MS = 30 * 60 * 1000;
/** Runs (attempts) after which a lost upload is given up instead of re-driven. */
export const MAX_RUNS = 5;
const LIVE_STATES = new Set(['created', 'retry', 'active']);

interface Deps {
  queue: JobQueue;
  repo: StudiesRepository;
  uploadArea: UploadArea;
  processStudy: ProcessStudyJob;
  expiryMs: number;
  now: () => Date;
}

/**
 * sweep-uploads, every 15 minutes: removes abandoned tus uploads (unfinished, or finished and never
 * sent for processing) once they expire, and re-drives uploads whose processing job was lost (a
 * crash between recording the upload and queueing its job, or a job pg-boss gave up on while the
 * worker kept dying). An upload lost too often is failed and its owner told, so nothing loops forever.
 */
export function sweepUploadsJob(deps: Deps) {
  return defineJob({
    name: 'sweep-uploads',
    payload: z.object({}).passthrough(),
    retry: { limit: 0, delaySeconds: 60 },
    cron: '*/15 * * * *',
    async handler(_data, { log }) {
      const now = deps.now().getTime();
      const expired = await deps.uploadArea.sweep(new Date(now - deps.expiryMs), async (id) =>
        Boolean(await deps.repo.findUploadByObjectName(id)),
      );

      let redriven = 0;
      let abandoned = 0;
      for (const upload of await deps.repo.staleUploads(new Date(now - LOST_AFTER_MS))) {
        if (upload.jobId && LIVE_STATES.has((await deps.queue.stateOf(upload.jobId)) ?? '')) continue;
        if (upload.attempts >= MAX_RUNS) {
          await deps.processStudy.abandon(
            upload,
            'The upload could not be processed because of an error on our side. Please try again later.',
            log,
          );
          abandoned++;
          continue;
        }
        // A fresh job id: the lost job's id may still be taken by its failed or archived record.
        const jobId = randomUUID();
        await deps.queue.send(
          deps.processStudy,
          { uploadId: upload.id, userId: upload.ownerId, objectName: upload.objectName },
          { id: jobId },
        );
        await deps.repo.setUploadJob(upload.id, jobId);
        redriven++;
      }
      log.info({ expired, redriven, abandoned }, 'uploads swept');
    },
  });
}
export type SweepUploadsJob = ReturnType<typeof sweepUploadsJob>;
