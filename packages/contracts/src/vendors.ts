import { z } from 'zod';

/**
 * External AI vendors (docs/decisions.md, "External AI vendors"): a directory provider with a
 * webhook receives automated orders signed with its secret, reads the order's one study through
 * DICOMweb with an expiring credential, and posts its report back, signed the same way.
 */

/** Headers of a signed request, both ways (lower case, as Node reads them). */
export const VENDOR_HEADERS = {
  /** Unix time in seconds when the request was signed. */
  timestamp: 'x-mi-timestamp',
  /** `v1=` and the hex HMAC-SHA256 of `${timestamp}.${body}` under the provider's secret. */
  signature: 'x-mi-signature',
  /** `order.created` (webhooks we send). */
  event: 'x-mi-event',
  /** A fresh id per attempt (webhooks we send). */
  delivery: 'x-mi-delivery',
} as const;

/** How far a signed request's timestamp may be from our clock. */
export const VENDOR_SIGNATURE_TOLERANCE_SECONDS = 300;
export const VENDOR_WEBHOOK_URL_MAX = 2000;

/** Admin → Providers: the webhook an external AI vendor receives orders at. */
export const vendorWebhookBodySchema = z.strictObject({
  webhookUrl: z
    .string()
    .trim()
    .min(1, 'Please enter the webhook URL')
    .max(VENDOR_WEBHOOK_URL_MAX, `The webhook URL must be at most ${VENDOR_WEBHOOK_URL_MAX} characters`),
});
export type VendorWebhookBody = z.infer<typeof vendorWebhookBodySchema>;

/** What the admin area shows of a provider's vendor webhook (never the secret). */
export const vendorSummarySchema = z.object({
  webhookUrl: z.string(),
  secretCreatedAt: z.string().nullable(),
});
export type VendorSummary = z.infer<typeof vendorSummarySchema>;

/** The answer to a webhook change: `secret` only when one was just made (shown once). */
export const vendorConfigResponseSchema = z.object({
  message: z.string(),
  data: z.object({
    providerId: z.string(),
    vendor: vendorSummarySchema.nullable(),
    secret: z.string().optional(),
  }),
});
export type VendorConfigResponse = z.infer<typeof vendorConfigResponseSchema>;

/** The webhook's JSON body (event `order.created`). No patient name or id: the vendor reads the study. */
export const vendorWebhookPayloadSchema = z.object({
  event: z.literal('order.created'),
  orderId: z.string(),
  service: z.object({ id: z.string(), name: z.string(), type: z.enum(['AI', 'Combined']) }),
  study: z.object({
    studyInstanceUid: z.string(),
    modalities: z.array(z.string()),
    seriesCount: z.number(),
    instanceCount: z.number(),
  }),
  dicomweb: z.object({
    /** The QIDO-RS / WADO-RS root (`…/dicomweb`); send `Authorization: Bearer <token>`. */
    baseUrl: z.string(),
    token: z.string(),
    expiresAt: z.string(),
  }),
  /** Where the report is posted, signed like the webhook. */
  callbackUrl: z.string(),
});
export type VendorWebhookPayload = z.infer<typeof vendorWebhookPayloadSchema>;

export const VENDOR_REPORT_FIELD_MAX = 20_000;
const text = (name: string, max: number) =>
  z.string().trim().max(max, `${name} must be at most ${max} characters`);

/** The vendor's report (POST /api/vendors/orders/{orderId}/report). Rendered as plain text. */
export const vendorReportBodySchema = z.strictObject({
  title: text('title', 200).min(1).optional(),
  findings: text('findings', VENDOR_REPORT_FIELD_MAX).min(1, 'findings are required'),
  impression: text('impression', 10_000).min(1, 'impression is required'),
  recommendation: text('recommendation', 10_000).optional(),
  sections: z
    .array(
      z.strictObject({ heading: text('heading', 200).min(1), text: text('text', VENDOR_REPORT_FIELD_MAX) }),
    )
    .max(20)
    .optional(),
});
export type VendorReportBody = z.infer<typeof vendorReportBodySchema>;
/** Most bytes of a report callback's body. */
export const VENDOR_REPORT_MAX_BYTES = 256 * 1024;

export const vendorReportAnswerSchema = z.object({
  received: z.literal(true),
  orderId: z.string(),
  /** `completed` for an AI order; a Complete Analysis Package stays open for the professional. */
  orderStatus: z.string(),
});
