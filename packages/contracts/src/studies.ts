import { z } from 'zod';

/**
 * Studies, uploads, jobs and notifications: data shapes and API bodies. Field names follow the
 * product specification so a client written against it works; `_id` and `id` carry the same value.
 */

export const processStatusSchema = z.enum(['pending', 'processing', 'completed', 'failed']);
export const transferStatusSchema = z.enum(['pending', 'processing', 'completed', 'failed']);

export const studyMetadataSchema = z.object({
  studyDescription: z.string().nullable(),
  /** Institution name (0008,0080). */
  location: z.string().nullable(),
  patientName: z.string().nullable(),
  patientId: z.string().nullable(),
  patientBirthDate: z.string().nullable(),
  patientSex: z.string().nullable(),
  /** Modalities of the study joined with '/', e.g. 'CT' or 'CT/SR'. */
  modality: z.string().nullable(),
  modalities: z.array(z.string()),
  /** YYYY-MM-DD, or null when the files carry no study date. */
  studyDate: z.string().nullable(),
  accessionNumber: z.string().nullable(),
  bodyPart: z.string().nullable(),
});

export const studySchema = z.object({
  _id: z.string(),
  id: z.string(),
  /** DICOM Study Instance UID. */
  studyId: z.string().nullable(),
  ownerId: z.string(),
  createdAt: z.string(),
  status: z.object({
    process: z.object({ value: processStatusSchema, reason: z.string().nullable() }),
    transfer: z.object({ value: transferStatusSchema.nullable() }),
  }),
  metadata: studyMetadataSchema,
  seriesCount: z.number().int(),
  instanceCount: z.number().int(),
  sizeBytes: z.number(),
  /** Filled once analysis orders exist. */
  latestCompletionDate: z.string().nullable(),
  /** A de-identified copy (PS3.15 Annex E) the owner made of one of their studies. */
  deidentified: z.boolean().optional(),
});
export type Study = z.infer<typeof studySchema>;

/**
 * One row of the studies list: the spec's Study plus what the list pages show (Latest Completion).
 * Counts, size, owner, the patient's ID, birth date and sex (the Info dialog's details) and the other
 * header fields are read per study (`GET /api/studies/study/{id}`): the list is fetched whole and
 * often, so every byte is paid 1,000 times, and patient data nobody displays stays on the server.
 */
export const studyListItemSchema = studySchema
  .omit({ ownerId: true, seriesCount: true, instanceCount: true, sizeBytes: true })
  .extend({
    metadata: studyMetadataSchema.omit({
      modalities: true,
      accessionNumber: true,
      bodyPart: true,
      patientId: true,
      patientBirthDate: true,
      patientSex: true,
    }),
  });
export type StudyListItem = z.infer<typeof studyListItemSchema>;

/**
 * Paging of a list for API clients (`?offset=&limit=`). Without either the whole list comes, as the
 * web app reads it; with either, the answer also carries `total`, the length of the whole list.
 */
export const listPageQuerySchema = z.object({
  offset: z.coerce.number().int().min(0).max(1_000_000_000).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const studyListSchema = z.object({
  data: z.array(studyListItemSchema),
  /** The whole list's length, when a page was asked for. */
  total: z.number().int().optional(),
});
export const studyResponseSchema = z.object({ data: studySchema });

/** A study as the Analysis services page shows it. */
export const analysisStudySchema = z.object({
  id: z.string(),
  type: z.string().nullable(),
  date: z.string().nullable(),
  status: processStatusSchema,
  fileType: z.string(),
  fileSize: z.number(),
  metadata: z.object({
    patient: z.string().nullable(),
    age: z.string().nullable(),
    modality: z.string().nullable(),
    bodyPart: z.string().nullable(),
  }),
});
export type AnalysisStudy = z.infer<typeof analysisStudySchema>;

/** Short-lived upload credential: lets its holder write only `{userId}/{uuid}/study.zip` objects. */
export const storageTokenSchema = z.object({
  accessToken: z.string(),
  bucket: z.string(),
  expiresAt: z.string(),
  /** tus endpoint to create uploads at. */
  uploadUrl: z.string(),
});
export type StorageToken = z.infer<typeof storageTokenSchema>;

export const uploadTypeSchema = z.enum(['regular', 'shared']);
export const processStudyBodySchema = z.strictObject({
  /** `{userId}/{uuid}/study.zip` (or its folder `{userId}/{uuid}`) of a finished upload. */
  prefix: z.string().min(1).max(300),
  jobContext: z
    .strictObject({
      uploadType: uploadTypeSchema.default('regular'),
      targetUserId: z.string().optional(),
      /** A shared upload's invitation token (from the invite link), which names the inviter. */
      invitation: z.string().max(200).optional(),
    })
    .default({ uploadType: 'regular' }),
});
export type ProcessStudyBody = z.infer<typeof processStudyBodySchema>;
export const processStudyResponseSchema = z.object({ message: z.string(), jobId: z.string() });

export const jobNameSchema = z.enum(['process-study', 'transfer-study']);
export const pendingJobSchema = z.object({
  id: z.string(),
  name: jobNameSchema,
  state: z.string(),
  studyId: z.string().nullable(),
  createdAt: z.string(),
});
export const pendingJobsSchema = z.object({ count: z.number().int(), jobs: z.array(pendingJobSchema) });
export type PendingJobs = z.infer<typeof pendingJobsSchema>;

export const notificationSchema = z.object({
  _id: z.string(),
  type: z.enum(['analysis', 'message', 'system']),
  title: z.string(),
  description: z.string(),
  read: z.boolean(),
  createdAt: z.string(),
});
export type Notification = z.infer<typeof notificationSchema>;
export const notificationListSchema = z.object({
  data: z.array(notificationSchema),
  unreadCount: z.number().int(),
});
export const notificationResponseSchema = z.object({ message: z.string(), data: notificationSchema });
