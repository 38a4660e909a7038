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
  accountStatus: z.enum(['active', 'pending', 'rejected']),
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
