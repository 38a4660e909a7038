import {
  bigserial,
  date,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './users';

/** Licence and practice details of a medical professional; an admin reviews them. */
export const professionalProfiles = pgTable('professional_profiles', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  licenseNumber: text('license_number').notNull(),
  licenseState: text('license_state').notNull(),
  licenseExpiryDate: date('license_expiry_date', { mode: 'string' }).notNull(),
  specialty: text('specialty').notNull(),
  hospital: text('hospital').notNull(),
  position: text('position'),
  reviewedAt: timestamp('reviewed_at', { withTimezone: true }),
  reviewedBy: uuid('reviewed_by'),
  /** The professional paused their offers: none is sold, and orders waiting for them are refunded. */
  offersPausedAt: timestamp('offers_paused_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Single-use links sent by email (password reset, email verification). Only the SHA-256 of the
 * token is kept; a used or expired row never matches again.
 */
export const emailTokens = pgTable(
  'email_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', {
      enum: ['password_reset', 'email_verify', 'sign_in_unlock', 'email_change'],
    }).notNull(),
    tokenHash: text('token_hash').notNull(),
    /** The address an `email_change` token moves the account to once its link is opened. */
    newEmail: text('new_email'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('email_tokens_token_hash_key').on(t.tokenHash),
    index('email_tokens_user_idx').on(t.userId, t.purpose),
  ],
);

/**
 * A sign-in waiting for its second factor: created after a correct password (or Google token),
 * identified by a short-lived token the client must present with the code.
 */
export const mfaChallenges = pgTable(
  'mfa_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    method: text('method', { enum: ['email', 'totp'] }).notNull(),
    /** How the first factor was given (password, google), for the audit trail. */
    firstFactor: text('first_factor').notNull(),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('mfa_challenges_token_hash_key').on(t.tokenHash),
    index('mfa_challenges_user_idx').on(t.userId),
  ],
);

/** Emailed second-factor codes: six digits, stored as a keyed hash, single-use, 10 minutes. */
export const mfaCodes = pgTable(
  'mfa_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    challengeId: uuid('challenge_id')
      .notNull()
      .references(() => mfaChallenges.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('mfa_codes_challenge_idx').on(t.challengeId, t.createdAt)],
);

/** Recovery codes for the authenticator-app method: hashed, each usable once. */
export const mfaRecoveryCodes = pgTable(
  'mfa_recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('mfa_recovery_codes_user_idx').on(t.userId)],
);

/**
 * Sliding-window counters for throttling (login failures per account and per IP, MFA tries,
 * reset requests). In the database so every API process sees the same counts.
 */
export const authThrottleHits = pgTable(
  'auth_throttle_hits',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    key: text('key').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (t) => [index('auth_throttle_hits_key_at_idx').on(t.key, t.at)],
);

/**
 * Solved captcha challenges, each accepted once: the primary key makes the second use fail on
 * every API process at once. Kept until the challenge would have expired anyway.
 */
export const spentCaptchaChallenges = pgTable('spent_captcha_challenges', {
  challengeId: text('challenge_id').primaryKey(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/**
 * Per-address request counters of the rate-limited routes (fixed windows), shared by every API
 * process so a limit counts the requests of all of them (http/rate-limit-store.ts).
 */
export const rateLimitWindows = pgTable('rate_limit_windows', {
  key: text('key').primaryKey(),
  windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
  hits: integer('hits').notNull(),
});
