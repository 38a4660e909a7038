import {
  bigint,
  boolean,
  date,
  index,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** Every account: patients, professionals and admins. Emails are unique regardless of letter case. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    /** Lower-cased email; the unique key for sign-in and duplicate checks. */
    emailNormalized: text('email_normalized').notNull(),
    passwordHash: text('password_hash'),
    name: text('name'),
    role: text('role', { enum: ['patient', 'professional', 'admin'] }).notNull(),
    // 'disabled': turned off by an admin (no sign-in, sessions and credentials ended); a text column, so no migration.
    accountStatus: text('account_status', { enum: ['active', 'pending', 'rejected', 'disabled'] })
      .notNull()
      .default('active'),
    dateOfBirth: date('date_of_birth', { mode: 'string' }),
    mobilePhone: text('mobile_phone'),
    shareMedicalData: boolean('share_medical_data').notNull().default(false),
    mfaEnabled: boolean('mfa_enabled').notNull().default(false),
    mfaMethod: text('mfa_method', { enum: ['email', 'totp'] }),
    /** Authenticator-app secret, encrypted with a key derived from SESSION_SECRET. */
    totpSecret: text('totp_secret'),
    /** Secret shown during enrolment, kept until the user confirms a first code. */
    totpPendingSecret: text('totp_pending_secret'),
    /** Last accepted TOTP time step, so one code cannot be replayed. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    /** Google account id (`sub` of its ID tokens); accounts are keyed by it, not by email. */
    googleSub: text('google_sub'),
    rejectionReason: text('rejection_reason'),
    shareMedicalDataUpdatedAt: timestamp('share_medical_data_updated_at', { withTimezone: true }),
    emailNotifications: boolean('email_notifications').notNull().default(true),
    smsNotifications: boolean('sms_notifications').notNull().default(false),
    welcomeModalShown: boolean('welcome_modal_shown').notNull().default(false),
    /**
     * The password was handed out (the first admin's, printed at first start): it signs in once more,
     * to choose a new one, and nothing else is reachable until then (http/auth-hook.ts).
     */
    passwordChangeRequired: boolean('password_change_required').notNull().default(false),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    termsAcceptedAt: timestamp('terms_accepted_at', { withTimezone: true }),
    /** Per-user quota override in bytes; null means the configured default. */
    maxStorageBytes: bigint('max_storage_bytes', { mode: 'number' }),
    usedStorageBytes: bigint('used_storage_bytes', { mode: 'number' }).notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_normalized_key').on(t.emailNormalized),
    uniqueIndex('users_google_sub_key').on(t.googleSub),
    index('users_role_idx').on(t.role),
  ],
);

/**
 * Server-side sessions. The browser holds only opaque tokens in httpOnly cookies; we keep their
 * SHA-256 so a database leak does not hand out live sessions.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    authTokenHash: text('auth_token_hash').notNull(),
    refreshTokenHash: text('refresh_token_hash').notNull(),
    userAgent: text('user_agent'),
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    /** Absolute end of the session, however active it is. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason'),
    /**
     * When the user last proved it is them in this session (password, second-factor code, Google),
     * for security settings (modules/auth/fresh-proof.ts); the sign-in itself counts as one.
     */
    reauthenticatedAt: timestamp('reauthenticated_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('sessions_auth_token_hash_key').on(t.authTokenHash),
    uniqueIndex('sessions_refresh_token_hash_key').on(t.refreshTokenHash),
    index('sessions_user_idx').on(t.userId),
  ],
);

/**
 * Refresh tokens already exchanged, per session. One presented again means it was copied: the
 * session (the whole token family) is revoked.
 */
export const rotatedRefreshTokens = pgTable(
  'rotated_refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('rotated_refresh_tokens_session_idx').on(t.sessionId)],
);
