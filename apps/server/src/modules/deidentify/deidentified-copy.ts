import { z } from 'zod';
import type { JobTarget } from '../../jobs/queue';

/** The job that makes a de-identified copy of one study (deidentified-copy.job.ts). */
export const DEIDENTIFIED_COPY = {
  name: 'deidentified-copy',
  payload: z.object({
    /** The owner: the copy is theirs, in their list, against their storage. */
    userId: z.string().uuid(),
    studyId: z.string().uuid(),
    /** Names the copy: its UIDs and its storage follow from it, so a retry makes the same copy. */
    copyId: z.string().uuid(),
    includePdfReports: z.boolean().default(false),
  }),
} satisfies JobTarget;
