import { customType, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { studyLinkCredentials } from './links';
import { series, studies } from './studies';
import { sessions, users } from './users';

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

/**
 * Credentials the viewer uses for DICOMweb: each opens one study for one user until it expires.
 * Only a hash of the token is kept. Deleting the study (or the user) deletes its grants.
 */
export const viewerGrants = pgTable(
  'viewer_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    studyId: uuid('study_id')
      .notNull()
      .references(() => studies.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** Hash of the secret cookie of the one browser the credential was first used in; it works nowhere else. */
    bindingHash: text('binding_hash'),
    /** The sign-in session that asked for it: signing out (or any revocation of it) ends the grant too. */
    sessionId: uuid('session_id').references(() => sessions.id, { onDelete: 'cascade' }),
    /** Set for a study link's viewer (modules/links): the grant reads as that link, not as its user. */
    linkCredentialId: uuid('link_credential_id').references(() => studyLinkCredentials.id, {
      onDelete: 'cascade',
    }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('viewer_grants_study_idx').on(t.studyId)],
);

/**
 * WADO-RS series metadata (DICOM JSON), computed once per series and kept gzip-compressed.
 * `version` digests the series' stored objects, so a re-upload that changes them recomputes it.
 */
export const seriesMetadataCache = pgTable('series_metadata_cache', {
  seriesId: uuid('series_id')
    .primaryKey()
    .references(() => series.id, { onDelete: 'cascade' }),
  version: text('version').notNull(),
  instanceCount: integer('instance_count').notNull(),
  gzip: bytea('gzip').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The study's picture on cards and rows, rendered once from a representative instance. */
export const studyThumbnails = pgTable('study_thumbnails', {
  studyId: uuid('study_id')
    .primaryKey()
    .references(() => studies.id, { onDelete: 'cascade' }),
  version: text('version').notNull(),
  /** Null when no instance of the study could be rendered (the placeholder is shown). */
  image: bytea('image'),
  contentType: text('content_type'),
  reason: text('reason'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
