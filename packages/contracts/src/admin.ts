import { z } from 'zod';

export const outboxMessageSchema = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  createdAt: z.string(),
});
export type OutboxMessage = z.infer<typeof outboxMessageSchema>;
export const outboxListSchema = z.object({ data: z.array(outboxMessageSchema) });

export const failedJobSchema = z.object({
  id: z.string(),
  name: z.string(),
  state: z.string(),
  retryCount: z.number(),
  createdOn: z.string(),
  completedOn: z.string().nullable(),
  error: z.string().nullable(),
});
export type FailedJob = z.infer<typeof failedJobSchema>;
export const failedJobListSchema = z.object({ data: z.array(failedJobSchema) });

export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  database: z.object({ ok: z.boolean(), kind: z.enum(['pglite', 'postgres']) }),
  storage: z.object({ ok: z.boolean(), kind: z.enum(['fs', 's3']) }),
  queue: z.object({ ok: z.boolean() }),
});
export type Health = z.infer<typeof healthSchema>;

/** A medical professional's application as the admin area shows it. */
export const professionalApplicationSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  email: z.string(),
  mobilePhone: z.string().nullable(),
  emailVerified: z.boolean(),
  accountStatus: z.enum(['active', 'pending', 'rejected', 'disabled']),
  rejectionReason: z.string().nullable(),
  createdAt: z.string(),
  license: z.object({ number: z.string(), state: z.string(), expiryDate: z.string() }),
  specialty: z.string(),
  hospital: z.string(),
  position: z.string().nullable(),
  reviewedAt: z.string().nullable(),
});
export type ProfessionalApplication = z.infer<typeof professionalApplicationSchema>;
export const professionalListSchema = z.object({ data: z.array(professionalApplicationSchema) });
export const professionalListQuerySchema = z.object({
  status: z.enum(['pending', 'active', 'rejected', 'all']).default('pending'),
});
export const rejectProfessionalBodySchema = z.strictObject({
  reason: z.string({ error: 'A reason is required' }).trim().min(1, 'A reason is required').max(1000),
});
export const professionalDecisionResponseSchema = z.object({
  message: z.string(),
  data: professionalApplicationSchema,
});

/** Account states: professionals wait for verification (pending, rejected); an admin may disable anyone else. */
export const accountStatusSchema = z.enum(['active', 'pending', 'rejected', 'disabled']);

/** A user account as the admin console lists it. */
export const adminUserSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  email: z.string(),
  role: z.enum(['patient', 'professional', 'admin']),
  accountStatus: accountStatusSchema,
  emailVerified: z.boolean(),
  createdAt: z.string(),
  /** When the user last signed in (a session was created); null if never. */
  lastSignInAt: z.string().nullable(),
  mfaEnabled: z.boolean(),
  mfaMethod: z.enum(['email', 'totp']).nullable(),
  usedStorageBytes: z.number(),
  maxStorageBytes: z.number(),
  /** The user's own quota (null: the configured default applies). */
  quotaOverride: z.boolean(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

export const ADMIN_PAGE_SIZE_MAX = 100;
export const adminUserListQuerySchema = z.object({
  q: z.string().trim().max(200).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(ADMIN_PAGE_SIZE_MAX).default(20),
});
export const adminUserListSchema = z.object({
  data: z.array(adminUserSchema),
  page: z.number(),
  limit: z.number(),
  total: z.number(),
});
export const adminUserResponseSchema = z.object({ message: z.string(), data: adminUserSchema });
export const adminUserDetailSchema = z.object({ data: adminUserSchema });

export const disableUserBodySchema = z.strictObject({
  reason: z.string().trim().max(500).optional(),
});
/** A quota in GB (GB = 1024³ bytes); null returns the user to the configured default. */
export const quotaBodySchema = z.strictObject({
  maxStorageGB: z
    .number({ error: 'Enter a quota in GB' })
    .min(0.1, 'The quota must be at least 0.1 GB')
    .max(100_000, 'The quota must be at most 100000 GB')
    .nullable(),
});
export type QuotaBody = z.infer<typeof quotaBodySchema>;

/** Audit log filters: user (as actor or target), study, action (a prefix: 'auth' matches 'auth.login'), date range. */
export const auditQuerySchema = z.object({
  userId: z.uuid({ error: 'Enter a user id' }).optional(),
  studyId: z.string().trim().max(100).optional(),
  action: z
    .string()
    .trim()
    .max(100)
    .regex(/^[a-z0-9_.]*$/i, 'Letters, digits, dots and underscores only')
    .optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(ADMIN_PAGE_SIZE_MAX).default(50),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;
export const auditEventSchema = z.object({
  id: z.number(),
  at: z.string(),
  actorId: z.string().nullable(),
  actorRole: z.string().nullable(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  outcome: z.enum(['success', 'failure', 'denied']),
  ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditEventDto = z.infer<typeof auditEventSchema>;
export const auditListSchema = z.object({
  data: z.array(auditEventSchema),
  page: z.number(),
  limit: z.number(),
  /** Whether a further page exists (the table only grows, so it is not counted). */
  hasMore: z.boolean(),
});

/** The admin console's health card. */
export const adminHealthSchema = healthSchema.extend({
  queue: z.object({ ok: z.boolean(), depth: z.number().nullable() }),
  disk: z.object({ freeBytes: z.number(), totalBytes: z.number() }).nullable(),
});
export type AdminHealth = z.infer<typeof adminHealthSchema>;

export const retryJobResponseSchema = z.object({ message: z.string() });

/**
 * Admin actions need a sign-in from the last few minutes; an older session gets 403 REAUTH_REQUIRED
 * and signs in again here: the password, then a code when the admin has a second factor.
 */
export const REAUTH_WINDOW_MINUTES = 15;
export const reauthBodySchema = z.union([
  z.strictObject({ password: z.string().min(1, 'Password is required').max(200) }),
  z.strictObject({
    mfaToken: z.string().min(1).max(200),
    code: z.string().trim().min(1, 'Code is required').max(50),
  }),
]);
export type ReauthBody = z.infer<typeof reauthBodySchema>;
export const reauthResponseSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), message: z.string(), authToken: z.string(), refreshToken: z.string() }),
  z.object({
    status: z.literal('mfa'),
    message: z.string(),
    method: z.enum(['email', 'totp']),
    mfaToken: z.string(),
  }),
]);
export type ReauthResponse = z.infer<typeof reauthResponseSchema>;
