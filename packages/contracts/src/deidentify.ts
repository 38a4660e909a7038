import { z } from 'zod';

/** What the profile does to one attribute, as the preview shows it. */
export const deidentifyChangeKindSchema = z.enum(['removed', 'emptied', 'replaced', 'shifted', 'cleaned']);

export const deidentifyChangeSchema = z.object({
  /** `(0010,0010)`, or a nested one: `(0040,A730)[1] > (0040,A123)`. */
  path: z.string(),
  tag: z.string(),
  name: z.string(),
  kind: deidentifyChangeKindSchema,
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type DeidentifyChange = z.infer<typeof deidentifyChangeSchema>;

export const leftOutInstanceSchema = z.object({
  seriesInstanceUid: z.string().nullable(),
  sopInstanceUid: z.string().nullable(),
  modality: z.string().nullable(),
  code: z.enum(['burned-in', 'pixel-data-risk', 'pdf-report', 'document', 'unreadable', 'failed']),
  reason: z.string(),
});
export type LeftOutInstance = z.infer<typeof leftOutInstanceSchema>;

/** `GET /api/studies/{id}/deidentify/preview`: one instance before and after, and what stays out. */
export const deidentifyPreviewSchema = z.object({
  /** e.g. `DICOM PS3.15 2024b`. */
  edition: z.string(),
  profile: z.string(),
  options: z.array(z.string()),
  instanceCount: z.number().int(),
  /** The instance shown; null when every instance is left out. */
  sample: z
    .object({
      sopInstanceUid: z.string(),
      changes: z.array(deidentifyChangeSchema),
      /** Changes inside sequences, not listed one by one. */
      nestedChanges: z.number().int(),
      privateRemoved: z.number().int(),
    })
    .nullable(),
  leftOut: z.array(leftOutInstanceSchema),
});
export type DeidentifyPreview = z.infer<typeof deidentifyPreviewSchema>;

export const deidentifyQuerySchema = z.object({
  /** Keep encapsulated PDF reports in the copy (their text is not cleaned). */
  includePdfReports: z.enum(['0', '1', 'true', 'false']).optional(),
});

export const deidentifiedCopyBodySchema = z.object({ includePdfReports: z.boolean().optional() }).optional();
export const deidentifiedCopyResponseSchema = z.object({ jobId: z.string() });
