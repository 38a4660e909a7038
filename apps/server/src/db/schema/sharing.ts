import { sql } from 'drizzle-orm';
import {
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  boolean,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { studies } from './studies';
import { users } from './users';

/**
 * The healthcare provider directory (/providers). Catalogue rows are seeded and edited by admins;
 * a provider may be linked to a verified professional account, so a share to it reaches a person.
 * Users also add providers by sharing with a new email (`createdBy` set, not in the directory).
 */
export const providers = pgTable(
  'providers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    specialty: text('specialty'),
    description: text('description'),
    /** Years of experience as a numeric string ('12'). */
    yearsOfExperience: text('years_of_experience'),
    credentials: text('credentials')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    location: jsonb('location').$type<{
      street: string;
      city: string;
      state: string;
      zipCode: string;
      country: string;
    }>(),
    academicProfile: jsonb('academic_profile').$type<{ rank: string; numberOfPublications: number }>(),
    email: text('email').notNull(),
    emailNormalized: text('email_normalized').notNull(),
    mobile: text('mobile'),
    website: text('website'),
    workingHours: jsonb('working_hours').$type<{ weekdays: string; weekends: string }>(),
    /**
     * What the entry is (contracts/directory.ts): a verified professional's own profile (listed once
     * published), an organisation an admin added, or the platform's own automated analysis. A user's
     * private contact is 'organisation' with `listed = 'contact'`.
     */
    kind: text('kind', { enum: ['professional', 'organisation', 'automated'] })
      .notNull()
      .default('organisation'),
    /** A professional's profile is in the directory from then on; null while unpublished. */
    publishedAt: timestamp('published_at', { withTimezone: true }),
    /** Seeded by `npm run demo` and labelled 'Demo' wherever it shows. */
    demo: boolean('demo').notNull().default(false),
    /** In the searchable directory (seeded or admin-made); false for a user's own email contact. */
    listed: text('listed', { enum: ['directory', 'contact'] })
      .notNull()
      .default('directory'),
    /** The user who added this contact by email; null for directory entries. */
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'cascade' }),
    /** A verified professional account this provider is (admin action). */
    linkedUserId: uuid('linked_user_id').references(() => users.id, { onDelete: 'set null' }),
    /**
     * An external AI vendor's webhook (admin action): automated orders of this provider are sent there
     * instead of the built-in report (modules/vendors). https only, except loopback outside production.
     */
    vendorWebhookUrl: text('vendor_webhook_url'),
    /**
     * The webhook signing secret, sealed with AES-256-GCM under a key derived from SESSION_SECRET
     * (modules/vendors/vendor-secret.ts): we sign with it, so it is kept readable to us, never in the clear.
     */
    vendorSecretSealed: text('vendor_secret_sealed'),
    vendorSecretCreatedAt: timestamp('vendor_secret_created_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (t) => [
    index('providers_email_idx').on(t.emailNormalized),
    // A professional's profile may share its email with an organisation (a clinic using its doctor's address).
    uniqueIndex('providers_directory_email_key')
      .on(t.emailNormalized)
      .where(sql`${t.listed} = 'directory' and ${t.kind} <> 'professional'`),
    uniqueIndex('providers_professional_key')
      .on(t.linkedUserId)
      .where(sql`${t.kind} = 'professional'`),
    uniqueIndex('providers_contact_email_key')
      .on(t.createdBy, t.emailNormalized)
      .where(sql`${t.listed} = 'contact'`),
  ],
);

/** A user's trusted network: the providers on their /providers page. */
export const userProviders = pgTable(
  'user_providers',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.providerId] })],
);

/**
 * A study shared with an email address. It reaches an account (`targetUserId`) only once that
 * account has proved it holds the email; until then it is an invitation. Revoking keeps the row
 * (access receipts show it) and ends access at once.
 */
export const studyShares = pgTable(
  'study_shares',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    studyId: uuid('study_id')
      .notNull()
      .references(() => studies.id, { onDelete: 'cascade' }),
    /** Who shared it; moves with the study when ownership moves. */
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    emailNormalized: text('email_normalized').notNull(),
    targetUserId: uuid('target_user_id').references(() => users.id, { onDelete: 'cascade' }),
    providerId: uuid('provider_id').references(() => providers.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** First time the recipient opened the study (the owner is notified once). */
    firstOpenedAt: timestamp('first_opened_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('study_shares_active_email_key')
      .on(t.studyId, t.emailNormalized)
      .where(sql`${t.revokedAt} is null`),
    index('study_shares_target_idx')
      .on(t.targetUserId, t.studyId)
      .where(sql`${t.revokedAt} is null`),
    index('study_shares_pending_email_idx')
      .on(t.emailNormalized)
      .where(sql`${t.targetUserId} is null and ${t.revokedAt} is null`),
    index('study_shares_study_idx').on(t.studyId, t.createdAt),
    index('study_shares_provider_idx').on(t.providerId, t.ownerId),
  ],
);

/**
 * Invitations: to upload into the inviter's account (`direct_upload`, a link or an email), or to
 * apply as a professional (`provider`). The URL carries `{id}.{hmac}`, so nothing secret is stored
 * and the link can be shown again; revoking or expiry ends it.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    inviterId: uuid('inviter_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['direct_upload', 'provider'] }).notNull(),
    /** Null for the inviter's shareable link (Share & Embed). */
    email: text('email'),
    /** The roles a referral may take when it completes registration. */
    allowedRoles: text('allowed_roles')
      .array()
      .notNull()
      .default(sql`'{patient}'::text[]`),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** Set when a referral completion used it (single use). */
    usedAt: timestamp('used_at', { withTimezone: true }),
    usedBy: uuid('used_by').references(() => users.id, { onDelete: 'set null' }),
    uploads: integer('uploads').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('invitations_inviter_idx').on(t.inviterId, t.kind, t.createdAt)],
);

/** A recipient asking the owner for a study. Approving moves the study; one open request per pair. */
export const ownershipRequests = pgTable(
  'ownership_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    studyId: uuid('study_id')
      .notNull()
      .references(() => studies.id, { onDelete: 'cascade' }),
    requesterId: uuid('requester_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['open', 'approved', 'closed'] })
      .notNull()
      .default('open'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('ownership_requests_open_key')
      .on(t.studyId, t.requesterId)
      .where(sql`${t.status} = 'open'`),
  ],
);
