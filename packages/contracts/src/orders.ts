import { z } from 'zod';

/**
 * Analysis services, card payments and orders (purchases). Field names follow the product
 * specification; prices are dollars in answers and cents on the wire to the card processor. Every
 * amount, price and state comes from the server: what a client sends is checked against it.
 */

const uuid = z.string().uuid();

export const serviceTypeSchema = z.enum(['AI', 'Expert', 'Combined']);
export type ServiceType = z.infer<typeof serviceTypeSchema>;

/** One provider offering a service, at its price (dollars). */
export const serviceProviderSchema = z.object({
  _id: z.string(),
  id: z.string(),
  name: z.string(),
  specialty: z.string().nullable(),
  /** The mean of patients' ratings, 1-5 (one decimal); null without ratings ('No ratings yet'). */
  rating: z.number().nullable(),
  ratingCount: z.number().int(),
  /** 'professional', 'organisation' or 'automated' (the platform's own analysis). */
  kind: z.enum(['professional', 'organisation', 'automated']),
  /** This provider's turnaround for the service (its offer's, else the service's typical time). */
  turnaround: z.string(),
  /** Modalities this provider reads for the service (a subset of the service's). */
  modalities: z.array(z.string()),
  /** Seeded by `npm run demo`: labelled 'Demo' wherever it is shown. */
  demo: z.boolean(),
  /** In the signed-in user's trusted network (/providers). */
  isConnected: z.boolean(),
  price: z.number(),
});
export type ServiceProvider = z.infer<typeof serviceProviderSchema>;

export const serviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** snake_case, e.g. `ai_analysis`; the pages show it with spaces and capitals. */
  scope: z.string(),
  description: z.string(),
  /** Turnaround, e.g. '24-48 hours'. */
  typicalTime: z.string(),
  requiredData: z.array(z.string()),
  type: serviceTypeSchema,
  /** Modalities the service reads, as shown ('X-Ray', 'CT', 'MRI', …). */
  supportedModalities: z.array(z.string()),
  providers: z.array(serviceProviderSchema),
});
export type Service = z.infer<typeof serviceSchema>;
export const serviceListSchema = z.array(serviceSchema);

/** DICOM modality codes behind each modality name the catalogue shows. */
export const MODALITY_CODES: Readonly<Record<string, readonly string[]>> = {
  'X-Ray': ['CR', 'DX', 'DR', 'XR', 'RG', 'MG', 'RF', 'XA'],
  CT: ['CT'],
  MRI: ['MR'],
  PET: ['PT'],
  Ultrasound: ['US'],
};

/**
 * Why a study cannot be read by a service that takes `supportedModalities`, or null when it can:
 * it needs images (when the count is known) and one of its modality codes among the service's.
 * The server decides with the same rule when an order is paid and when a study is attached to an
 * order waiting for data; the Purchased Services page uses it to mark the studies that do not fit.
 */
export function missingStudyData(
  supportedModalities: readonly string[],
  study: { modalities: readonly string[]; instanceCount?: number } | null | undefined,
): string | null {
  if (!study) return 'The order has no study.';
  if (study.instanceCount === 0) return 'The study has no images.';
  const codes = supportedModalities.flatMap((m) => MODALITY_CODES[m] ?? [m]);
  if (!study.modalities.some((m) => codes.includes(m.toUpperCase())))
    return `This service needs a ${supportedModalities.join(', ')} study.`;
  return null;
}

/**
 * missingStudyData for a study as the studies list gives it: its modalities joined with '/' ('CT',
 * 'CT/SR'), or null when none is known.
 */
export function missingStudyDataOfListed(
  supportedModalities: readonly string[],
  joinedModalities: string | null | undefined,
): string | null {
  return missingStudyData(supportedModalities, {
    modalities: (joinedModalities ?? '').split('/').filter(Boolean),
  });
}

// ---------------------------------------------------------------- orders

/**
 * An order's life. `awaiting_payment`: ordered from the Analysis services page, not paid yet (only
 * on /billing). After payment: `pending_approval` (a professional must accept), `pending_data_upload`
 * (the study lacks what the service needs), `in_progress`, `completed`; or `declined`, `cancelled`,
 * `refunded`. Only the server moves an order.
 */
export const orderStatusSchema = z.enum([
  'awaiting_payment',
  'pending_approval',
  'pending_data_upload',
  'in_progress',
  'completed',
  'declined',
  'cancelled',
  'refunded',
]);
export type OrderStatus = z.infer<typeof orderStatusSchema>;

export const purchaseSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  /** Dollars, the server's price at the time of ordering. */
  cost: z.number(),
  orderStatus: orderStatusSchema,
  service: z.object({ id: z.string(), name: z.string(), scope: z.string(), type: serviceTypeSchema }),
  provider: z.object({ id: z.string(), name: z.string(), demo: z.boolean() }),
  /**
   * The buyer's rating of a completed order (contracts/directory.ts); null before they rate it.
   * `editableUntil` is 30 days after it was first given.
   */
  rating: z
    .object({ stars: z.number().int(), comment: z.string().nullable(), editableUntil: z.string() })
    .nullable(),
  /** The study the analysis is for (null once that study is gone). */
  studyId: z.string().nullable(),
  paidAt: z.string().nullable(),
  /** The card it was paid with: brand and last four digits only. */
  card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
  paymentIntentId: z.string().nullable(),
  /** Dollars given back to the card (a declined or failed order is refunded in full); null when none. */
  refundedAmount: z.number().nullable(),
  /** When the refund was made; null when none. */
  refundedAt: z.string().nullable(),
  /**
   * When the automated part of a Complete Analysis Package was added to the study; its report opens
   * at `/api/orders/{id}/report?part=automated`. Null for other orders and before it arrives.
   */
  automatedReportAt: z.string().nullable(),
});
export type Purchase = z.infer<typeof purchaseSchema>;
export const purchaseListSchema = z.array(purchaseSchema);

/** POST /api/orders (Analysis services page, 'Order Now'): an order that waits for payment on /billing. */
export const createOrderBodySchema = z.strictObject({
  serviceId: uuid,
  providerId: uuid,
  studyId: uuid,
});
export type CreateOrderBody = z.infer<typeof createOrderBodySchema>;

/**
 * POST /api/purchases as the specification's client sends it. Only a succeeded payment of the
 * caller for that service and provider is accepted; cost and orderStatus are the server's (a cost
 * that disagrees is refused, orderStatus is ignored).
 */
export const createPurchaseBodySchema = z.object({
  user: z.string().max(64).optional(),
  service: z.string().max(64),
  provider: z.string().max(64),
  cost: z.number().optional(),
  orderStatus: z.string().max(64).optional(),
  paymentIntentId: z.string().min(1).max(255),
  study: z.string().max(64).optional(),
});
export type CreatePurchaseBody = z.infer<typeof createPurchaseBodySchema>;

// ---------------------------------------------------------------- payments

export const paymentProcessorSchema = z.enum(['sandbox', 'stripe']);
export type PaymentProcessor = z.infer<typeof paymentProcessorSchema>;

/** GET /api/payments/config: which card form the browser shows. */
export const paymentConfigSchema = z.object({
  processor: paymentProcessorSchema,
  /** Stripe's publishable key (processor 'stripe' only). */
  publishableKey: z.string().nullable(),
});
export type PaymentConfig = z.infer<typeof paymentConfigSchema>;

/**
 * POST /api/payments/create-payment-intent: for a new purchase (service, provider, study) or an
 * order waiting for payment (orderId). `amount` (cents), when sent, must equal the server's price.
 */
export const createPaymentIntentBodySchema = z.union([
  z.strictObject({
    serviceId: uuid,
    providerId: uuid,
    studyId: uuid,
    amount: z.number().optional(),
  }),
  z.strictObject({ orderId: uuid, amount: z.number().optional() }),
]);
export type CreatePaymentIntentBody = z.infer<typeof createPaymentIntentBodySchema>;

export const paymentIntentResponseSchema = z.object({
  clientSecret: z.string(),
  paymentIntentId: z.string(),
  /** Cents. */
  amount: z.number().int(),
  currency: z.string(),
  processor: paymentProcessorSchema,
});
export type PaymentIntentResponse = z.infer<typeof paymentIntentResponseSchema>;

/**
 * The sandbox processor's card form. Loose on purpose: a card number that fails the checks is
 * answered with the card message, never echoed back in a validation error.
 */
export const sandboxCardSchema = z.object({
  number: z.string().max(64),
  /** 'MM / YY', 'MM/YY' or 'MMYY'. */
  expiry: z.string().max(16),
  cvc: z.string().max(16),
  postalCode: z.string().max(16),
});
export type SandboxCard = z.infer<typeof sandboxCardSchema>;

export const sandboxConfirmBodySchema = z.strictObject({
  clientSecret: z.string().min(1).max(255),
  card: sandboxCardSchema,
});
export const sandboxAuthenticateBodySchema = z.strictObject({
  clientSecret: z.string().min(1).max(255),
  /** The cardholder completed (true) or failed / closed (false) the extra confirmation step. */
  approve: z.boolean(),
});

/** What a confirmation attempt ended in, as Stripe.js reports it. */
export const paymentResultSchema = z.object({
  paymentIntentId: z.string(),
  status: z.enum(['succeeded', 'requires_action', 'requires_payment_method', 'processing', 'canceled']),
  /** Card or validation error: a message fit to show. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** The purchase the successful payment created. */
  purchase: purchaseSchema.nullable(),
});
export type PaymentResult = z.infer<typeof paymentResultSchema>;

/** POST /api/payments/complete (Stripe): the browser's confirmation came back succeeded. */
export const completePaymentBodySchema = z.strictObject({ paymentIntentId: z.string().min(1).max(255) });

// ---------------------------------------------------------------- card rules

/** Stripe's messages for the card problems the sandbox reproduces. */
export const CARD_MESSAGES = {
  incorrect_number: 'Your card number is incorrect.',
  incomplete_number: 'Your card number is incomplete.',
  invalid_expiry: "Your card's expiration date is incomplete.",
  expired_card: "Your card's expiration date is in the past.",
  incomplete_cvc: "Your card's security code is incomplete.",
  incomplete_zip: 'Your postal code is incomplete.',
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  authentication_failed:
    'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
} as const;
export type CardErrorCode = keyof typeof CARD_MESSAGES;

export function cardDigits(number: string): string {
  return number.replace(/[\s-]/g, '');
}

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function cardBrand(digits: string): string {
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(digits)) return 'discover';
  if (/^35/.test(digits)) return 'jcb';
  if (/^3(0[0-5]|[68])/.test(digits)) return 'diners';
  if (/^62/.test(digits)) return 'unionpay';
  return 'unknown';
}

/** Month and four-digit year of 'MM / YY', 'MM/YY', 'MM/YYYY' or 'MMYY'; undefined when unreadable. */
export function parseExpiry(expiry: string): { month: number; year: number } | undefined {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(expiry);
  if (!m) return undefined;
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  return month >= 1 && month <= 12 ? { month, year } : undefined;
}

/**
 * The first problem of a card form, checked the way Stripe's card element does: number length
 * and checksum, expiry present and not past, CVC length (4 for American Express), postal code.
 */
export function cardFormError(card: SandboxCard, now: Date): CardErrorCode | undefined {
  const digits = cardDigits(card.number);
  if (!/^\d*$/.test(digits)) return 'incorrect_number';
  const brand = cardBrand(digits);
  const minLength = brand === 'amex' ? 15 : 16;
  if (digits.length < Math.min(minLength, 14)) return 'incomplete_number';
  if (digits.length < minLength && brand !== 'diners') return 'incomplete_number';
  if (digits.length > 19 || !luhnValid(digits)) return 'incorrect_number';
  const expiry = parseExpiry(card.expiry);
  if (!expiry) return 'invalid_expiry';
  const endOfMonth = new Date(Date.UTC(expiry.year, expiry.month, 1));
  if (endOfMonth.getTime() <= now.getTime()) return 'expired_card';
  const cvc = card.cvc.trim();
  if (!/^\d+$/.test(cvc) || cvc.length < (brand === 'amex' ? 4 : 3) || cvc.length > 4)
    return 'incomplete_cvc';
  if (card.postalCode.trim().length < 3) return 'incomplete_zip';
  return undefined;
}

/** Dollars with two decimals and a dollar sign: '$199.99'. */
export function formatDollars(amount: number): string {
  return `$${amount.toFixed(2)}`;
}

/** Words written in capitals wherever a snake_case value is shown ('ai' → 'AI'). */
const ACRONYMS = new Set('ai ct cta dicom ecg ekg mr mra mri pet spect xr'.split(' '));

/** `ai_analysis` → 'AI Analysis'; `pending_approval` → 'Pending Approval'; acronyms stay in capitals. */
export function humanize(value: string): string {
  return value
    .split('_')
    .filter(Boolean)
    .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(' ');
}
