import { z } from 'zod';
import { orderStatusSchema, serviceTypeSchema } from './orders';

/** Most characters of one report field (findings, impression, recommendation). */
export const REPORT_FIELD_MAX = 20_000;

/** An order as the professional it was sent to sees it (My Orders): no patient data. */
export const professionalOrderSchema = z.object({
  id: z.string(),
  orderStatus: orderStatusSchema,
  service: z.object({ id: z.string(), name: z.string(), type: serviceTypeSchema }),
  provider: z.object({ id: z.string(), name: z.string() }),
  paidAt: z.string().nullable(),
  acceptedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  /** The study's id: readable (viewer) only while the order is accepted and not finished. */
  studyId: z.string().nullable(),
  study: z
    .object({
      studyDate: z.string().nullable(),
      modalities: z.array(z.string()),
      seriesCount: z.number(),
      instanceCount: z.number(),
      bodyPart: z.string().nullable(),
    })
    .nullable(),
  draft: z.object({ findings: z.string(), impression: z.string(), recommendation: z.string() }),
});
export type ProfessionalOrder = z.infer<typeof professionalOrderSchema>;
export const professionalOrderListSchema = z.array(professionalOrderSchema);

const field = (name: string) =>
  z.string().trim().max(REPORT_FIELD_MAX, `${name} must be at most ${REPORT_FIELD_MAX} characters`);

/** The report a professional writes: Save keeps a draft; Deliver needs findings and impression. */
export const reportDraftSchema = z.strictObject({
  findings: field('Findings'),
  impression: field('Impression'),
  recommendation: field('Recommendation'),
});
export type ReportDraft = z.infer<typeof reportDraftSchema>;

export const deliverReportBodySchema = z.strictObject({
  findings: field('Findings').min(1, 'Findings are required'),
  impression: field('Impression').min(1, 'Impression is required'),
  recommendation: field('Recommendation'),
});
export type DeliverReportBody = z.infer<typeof deliverReportBodySchema>;

export const declineOrderBodySchema = z.strictObject({
  reason: z.string().trim().max(500).optional(),
});
export type DeclineOrderBody = z.infer<typeof declineOrderBodySchema>;

/** Attach another of one's studies to an order that needs data (pending_data_upload). */
export const attachStudyBodySchema = z.strictObject({ studyId: z.string().min(1).max(64) });
export type AttachStudyBody = z.infer<typeof attachStudyBodySchema>;

/** Why an order needs data, and what its service accepts (Purchased Services). */
export const orderDataNeedSchema = z.object({
  orderId: z.string(),
  supportedModalities: z.array(z.string()),
  requiredData: z.array(z.string()),
  reason: z.string(),
});
export type OrderDataNeed = z.infer<typeof orderDataNeedSchema>;

export const orderStatusAfterAttachSchema = z.object({
  orderId: z.string(),
  orderStatus: orderStatusSchema,
  studyId: z.string(),
});

/** GET /api/orders/{id}/report: the order's report, or the automated part of a package. */
export const reportPartQuerySchema = z.object({ part: z.enum(['final', 'automated']).default('final') });
