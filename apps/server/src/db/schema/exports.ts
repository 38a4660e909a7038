import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './users';

/** One file of a finished export, as its owner downloads it (modules/exports). */
export interface ExportFileRecord {
  name: string;
  size: number;
  storageKey: string;
  contentType: string;
}

/**
 * A patient's full export ('Export my data'): a ZIP (and optionally an ISO image) built by the
 * build-export job into object storage, kept until `expiresAt` and then deleted. Only its owner ever
 * sees it. The partial unique index keeps one export at a time per user, across processes.
 */
export const dataExports = pgTable(
  'data_exports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['queued', 'building', 'ready', 'failed', 'expired'] })
      .notNull()
      .default('queued'),
    /** 0–100. */
    progress: integer('progress').notNull().default(0),
    studyIds: uuid('study_ids').array().notNull(),
    deidentify: boolean('deidentify').notNull().default(false),
    iso: boolean('iso').notNull().default(false),
    files: jsonb('files')
      .$type<ExportFileRecord[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    /** What went wrong, in words the owner may read (never patient data). */
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Last progress write: a build that stops writing this is taken for abandoned. */
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    readyAt: timestamp('ready_at', { withTimezone: true }),
    /** Set when ready: the files are deleted after this. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (t) => [
    index('data_exports_owner_idx').on(t.ownerId, t.createdAt.desc()),
    uniqueIndex('data_exports_one_running_key')
      .on(t.ownerId)
      .where(sql`${t.status} in ('queued', 'building')`),
    index('data_exports_expires_idx')
      .on(t.expiresAt)
      .where(sql`${t.status} = 'ready'`),
  ],
);
