import { z } from 'zod';

/**
 * A patient's full export ('Export my data' in Settings): one ZIP with their studies as DICOM media
 * (DICOMDIR), delivered reports, a FHIR R4 Bundle, their sharing, link, order and access history,
 * and an index.html. Built by a job, kept EXPORT_KEEP_DAYS days. See docs/export.md.
 */

/** Days a finished export can be downloaded before its files are deleted. */
export const EXPORT_KEEP_DAYS = 7;
/** Studies one export may name explicitly (without `studyIds` it holds all of them). */
export const EXPORT_MAX_STUDIES = 1000;

const uuid = z.string().uuid();

export const createExportSchema = z
  .object({
    /** The studies to export; all of the user's studies when left out. */
    studyIds: z
      .array(uuid)
      .min(1, 'Choose at least one study to export.')
      .max(EXPORT_MAX_STUDIES, `An export can name at most ${EXPORT_MAX_STUDIES} studies.`)
      .optional(),
    /** De-identify the DICOM files (PS3.15 Basic Profile); reports and history are then left out. */
    deidentify: z.boolean().default(false),
    /** Also build an ISO 9660 image for burning to a CD or DVD. */
    iso: z.boolean().default(false),
  })
  .strict();
export type CreateExportRequest = z.input<typeof createExportSchema>;

export const exportStatusSchema = z.enum(['queued', 'building', 'ready', 'failed', 'expired']);
export type ExportStatus = z.infer<typeof exportStatusSchema>;

export const exportFileSchema = z.object({
  name: z.string(),
  size: z.number().int(),
  /** Where to download it (GET, supports Range for resuming). */
  url: z.string(),
});

export const exportSchema = z.object({
  id: uuid,
  status: exportStatusSchema,
  /** 0–100. */
  progress: z.number().int(),
  studyCount: z.number().int(),
  deidentify: z.boolean(),
  iso: z.boolean(),
  files: z.array(exportFileSchema),
  error: z.string().nullable(),
  createdAt: z.string(),
  readyAt: z.string().nullable(),
  /** When the files are deleted (ready exports). */
  expiresAt: z.string().nullable(),
});
export type DataExport = z.infer<typeof exportSchema>;

export const exportListSchema = z.object({ exports: z.array(exportSchema) });
export const createdExportSchema = z.object({ id: uuid });
