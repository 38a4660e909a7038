import { z } from 'zod';

/**
 * What queueing an upload's processing needs: the job's name and payload. Studies queues it; the
 * handler is modules/ingest/process-study.job.ts, which spreads this into its definition.
 */
export const PROCESS_STUDY = {
  name: 'process-study',
  payload: z.object({
    /** study_uploads.id */
    uploadId: z.uuid(),
    /** The owner, so pending jobs can be listed per user. */
    userId: z.uuid(),
    objectName: z.string(),
    /** Who sent a shared upload (someone the owner invited): their pending jobs list it too. */
    uploadedBy: z.uuid().optional(),
  }),
};
