import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { studies } from './studies';
import { users } from './users';

/**
 * Study links (modules/links): SMART Health Links a patient made for one or more of their studies,
 * with the policy they chose. The link's key is kept sealed with a key derived from SESSION_SECRET
 * (files are encrypted with it on each request); the manifest id is the link's public address.
 */
export const studyLinks = pgTable(
  'study_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** 43 base64url characters (256 bits): the last segment of the manifest URL. */
    manifestId: text('manifest_id').notNull().unique(),
    /** The link's 32-byte content key, sealed (links-crypto.ts). */
    sealedKey: text('sealed_key').notNull(),
    mode: text('mode', { enum: ['share', 'checkin'] }).notNull(),
    label: text('label'),
    /** The passcode, sealed like the key (a short secret's hash would fall to an offline guess). */
    sealedPasscode: text('sealed_passcode'),
    /** Wrong passcodes still accepted over the link's life; at 0 the link is disabled. */
    passcodeAttemptsLeft: integer('passcode_attempts_left').notNull(),
    allowDownload: boolean('allow_download').notNull().default(false),
    maxOpens: integer('max_opens'),
    opens: integer('opens').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    pausedAt: timestamp('paused_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** Set when the passcode budget ran out. */
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    lastOpenedAt: timestamp('last_opened_at', { withTimezone: true }),
    lastRecipient: text('last_recipient'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('study_links_owner_idx').on(t.ownerId, t.createdAt)],
);

/** The studies a link carries. Deleting a study removes it from its links. */
export const studyLinkStudies = pgTable(
  'study_link_studies',
  {
    linkId: uuid('link_id')
      .notNull()
      .references(() => studyLinks.id, { onDelete: 'cascade' }),
    studyId: uuid('study_id')
      .notNull()
      .references(() => studies.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.linkId, t.studyId] }),
    index('study_link_studies_study_idx').on(t.studyId),
  ],
);

/**
 * What one open of a link hands its recipient: a bearer credential for DICOMweb and /fhir/R4 (the
 * ImagingStudy Endpoint's header), scoped to the link's studies, living no longer than the link.
 * Only its hash is kept.
 */
export const studyLinkCredentials = pgTable(
  'study_link_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    linkId: uuid('link_id')
      .notNull()
      .references(() => studyLinks.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    recipient: text('recipient').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('study_link_credentials_link_idx').on(t.linkId)],
);

/**
 * Encrypted files served from a manifest's `location` URL (when too long to embed), and one-time
 * download tickets: each lives at most an hour, and only while its link does.
 */
export const studyLinkFiles = pgTable(
  'study_link_files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    linkId: uuid('link_id')
      .notNull()
      .references(() => studyLinks.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    credentialId: uuid('credential_id')
      .notNull()
      .references(() => studyLinkCredentials.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['file', 'download'] }).notNull(),
    /** The JWE (file) or the study id (download). */
    body: text('body').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('study_link_files_link_idx').on(t.linkId)],
);
