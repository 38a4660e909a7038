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

/**
 * What to do with de-identified copies once they exist: share them with someone, or make a study
 * link to them. The modules that do it define the rest of it (services.ts hands it to them).
 */
export const copiesFollowUpSchema = z.object({ kind: z.enum(['share', 'link']) }).passthrough();
export type CopiesFollowUp = z.infer<typeof copiesFollowUpSchema>;

/** The job that makes the missing de-identified copies of some studies, then does `then` with them all. */
export const DEIDENTIFIED_SEND = {
  name: 'deidentified-send',
  payload: z.object({
    userId: z.string().uuid(),
    /** In the order the owner chose them; a copy made before is reused (`existingStudyId`). */
    copies: z
      .array(
        z.object({
          studyId: z.string().uuid(),
          copyId: z.string().uuid(),
          existingStudyId: z.string().uuid().nullable(),
        }),
      )
      .min(1),
    then: copiesFollowUpSchema,
  }),
} satisfies JobTarget;
