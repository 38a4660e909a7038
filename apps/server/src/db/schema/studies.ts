import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './users';

/**
 * One row per (owner, Study Instance UID): a re-upload of the same study by its owner adds to it,
 * and two owners of the same study never share a row. Rows appear only once an upload has been
 * fully indexed, so a study never shows half-processed.
 */
export const studies = pgTable(
  'studies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    studyInstanceUid: text('study_instance_uid').notNull(),
    patientName: text('patient_name'),
    patientId: text('patient_id'),
    patientBirthDate: date('patient_birth_date', { mode: 'string' }),
    patientSex: text('patient_sex'),
    /** (0010,1010) as written, e.g. `045Y`. */
    patientAge: text('patient_age'),
    studyDate: date('study_date', { mode: 'string' }),
    studyTime: text('study_time'),
    studyDescription: text('study_description'),
    accessionNumber: text('accession_number'),
    institutionName: text('institution_name'),
    bodyPart: text('body_part'),
    /** Distinct modalities of the study's series, sorted. */
    modalities: text('modalities')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    processStatus: text('process_status', { enum: ['pending', 'processing', 'completed', 'failed'] })
      .notNull()
      .default('completed'),
    processReason: text('process_reason'),
    transferStatus: text('transfer_status', { enum: ['pending', 'processing', 'completed', 'failed'] }),
    seriesCount: integer('series_count').notNull().default(0),
    instanceCount: integer('instance_count').notNull().default(0),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull().default(0),
    /** Upload time of the first upload that brought this study. */
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Set when a delete starts. From then on the study is gone for every reader; its objects and then
     * its rows are removed, and a delete that stops half-way is finished by a retry or by the sweep.
     */
    deletingSince: timestamp('deleting_since', { withTimezone: true }),
    /** A de-identified copy of one of the owner's studies (modules/deidentify), never the original. */
    deidentified: boolean('deidentified').notNull().default(false),
    /** For a copy: the profile used, what was removed or replaced, and the instances left out and why. */
    deidentification: jsonb('deidentification').$type<Record<string, unknown>>(),
  },
  (t) => [
    // A study being deleted does not block a new upload of the same study.
    uniqueIndex('studies_owner_uid_key')
      .on(t.ownerId, t.studyInstanceUid)
      .where(sql`${t.deletingSince} is null`),
    index('studies_deleting_idx')
      .on(t.deletingSince)
      .where(sql`${t.deletingSince} is not null`),
    // The studies list: one owner's completed studies, newest upload first.
    index('studies_owner_status_created_idx').on(t.ownerId, t.processStatus, t.createdAt.desc(), t.id),
  ],
);

/**
 * A counter per owner that a trigger on `studies` bumps on every insert, update and delete, whoever
 * writes (ingest, delete, the viewer's transfer status). Readers compare it with one cheap query to
 * know whether a cached studies list is still current, across processes. No foreign key: the trigger
 * also fires while an account's studies are deleted with the account.
 */
export const studyListVersions = pgTable('study_list_versions', {
  ownerId: uuid('owner_id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

export const series = pgTable(
  'series',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    studyId: uuid('study_id')
      .notNull()
      .references(() => studies.id, { onDelete: 'cascade' }),
    seriesInstanceUid: text('series_instance_uid').notNull(),
    modality: text('modality'),
    seriesNumber: integer('series_number'),
    seriesDescription: text('series_description'),
    bodyPart: text('body_part'),
    instanceCount: integer('instance_count').notNull().default(0),
    /**
     * Raised by every transaction that adds, replaces or moves an instance of the series, so a copy
     * of what the series held (its cached metadata) is known to be current from this row alone.
     */
    revision: integer('revision').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('series_study_uid_key').on(t.studyId, t.seriesInstanceUid),
    // What an instance's (series, study) pair refers to (instances_series_study_fk).
    uniqueIndex('series_id_study_key').on(t.id, t.studyId),
  ],
);

/**
 * One stored DICOM file: its original bytes live once in object storage, as the object `storageKey`
 * or, for an archive kept whole, as `sizeBytes` bytes at `storageOffset` inside that object.
 */
export const instances = pgTable(
  'instances',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    studyId: uuid('study_id').notNull(),
    seriesId: uuid('series_id').notNull(),
    sopInstanceUid: text('sop_instance_uid').notNull(),
    sopClassUid: text('sop_class_uid'),
    instanceNumber: integer('instance_number'),
    transferSyntaxUid: text('transfer_syntax_uid'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    /** CRC-32 of the file, so a download ZIP can be laid out before any byte is read. */
    crc32: bigint('crc32', { mode: 'number' }).notNull(),
    storageKey: text('storage_key').notNull(),
    /** Where the file starts inside the object; 0 for an object that is the file itself. */
    storageOffset: bigint('storage_offset', { mode: 'number' }).notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Also how ingest's duplicate check finds stored instances: the owner's studies by Study UID,
    // then their instances by SOP UID (existingInstances).
    uniqueIndex('instances_study_sop_key').on(t.studyId, t.sopInstanceUid),
    index('instances_series_idx').on(t.seriesId),
    // One key for both parents: the instance's series, which must belong to the instance's study
    // (so the study exists too), and it goes with either. One check per inserted row, not two:
    // an upload inserts thousands of rows in the transaction that indexes it.
    foreignKey({
      name: 'instances_series_study_fk',
      columns: [t.seriesId, t.studyId],
      foreignColumns: [series.id, series.studyId],
    }).onDelete('cascade'),
    uniqueIndex('instances_storage_location_key').on(t.storageKey, t.storageOffset),
  ],
);

/**
 * One row per uploaded archive handed to processing. `objectName` is the tus upload id
 * (`{userId}/{uuid}/study.zip`); its uniqueness makes processing a singleton per upload.
 */
export const studyUploads = pgTable(
  'study_uploads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    objectName: text('object_name').notNull(),
    uploadType: text('upload_type', { enum: ['regular', 'shared'] })
      .notNull()
      .default('regular'),
    status: text('status', { enum: ['queued', 'processing', 'completed', 'failed'] })
      .notNull()
      .default('queued'),
    jobId: text('job_id'),
    /** Who sent the files: the owner, or for a shared upload the invitee (ownerId is the inviter). */
    uploadedBy: uuid('uploaded_by').references(() => users.id, { onDelete: 'set null' }),
    /** The invitation a shared upload came through. */
    invitationId: uuid('invitation_id'),
    reason: text('reason'),
    attempts: integer('attempts').notNull().default(0),
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    /** Counts and skip reasons, for the notification and for support. */
    summary: jsonb('summary').$type<Record<string, unknown>>(),
    studyIds: uuid('study_ids').array(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('study_uploads_object_name_key').on(t.objectName),
    index('study_uploads_owner_idx').on(t.ownerId, t.createdAt),
  ],
);

/**
 * Objects a processing run is about to write, recorded before the write. Whatever of these is not
 * indexed as an instance when the run ends (or after a crash) is deleted, so no object is orphaned.
 */
export const uploadObjects = pgTable(
  'upload_objects',
  {
    uploadId: uuid('upload_id')
      .notNull()
      .references(() => studyUploads.id, { onDelete: 'cascade' }),
    storageKey: text('storage_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.storageKey] })],
);

/** In-app notifications (see notificationSchema in packages/contracts/src/studies.ts). */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type', { enum: ['analysis', 'message', 'system'] }).notNull(),
    title: text('title').notNull(),
    description: text('description').notNull(),
    read: boolean('read').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('notifications_user_created_idx').on(t.userId, t.createdAt.desc())],
);
