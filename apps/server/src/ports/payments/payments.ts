import type { SandboxCard } from '@mi/contracts/orders';

/** A payment intent's status, as Stripe names them. */
export type IntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'succeeded'
  | 'canceled';

/** What the processor says about one payment. Never a card number: brand and last four digits. */
export interface PaymentIntent {
  id: string;
  /** Given to the paying browser only; null when read back from the processor. */
  clientSecret: string | null;
  status: IntentStatus;
  amountCents: number;
  currency: string;
  metadata: Record<string, string>;
  card: { brand: string; last4: string } | null;
  /** Why the last attempt failed (a card message fit to show). */
  lastError: { code: string; message: string } | null;
}

/** A refund of (part of) a succeeded payment. */
export interface PaymentRefund {
  id: string;
  paymentIntentId: string;
  amountCents: number;
  status: 'succeeded' | 'pending' | 'failed' | 'canceled' | 'requires_action';
}

/** A processor event the webhook accepted (its signature verified). */
export interface PaymentEvent {
  id: string;
  type: string;
  intent: PaymentIntent | null;
}

/**
 * The card processor. Default: the embedded sandbox (no third party, Stripe's test-card
 * behaviour); with STRIPE_* set: Stripe. Amounts are in cents.
 */
export interface PaymentsPort {
  readonly kind: 'sandbox' | 'stripe';
  /** Stripe's publishable key for the browser (stripe only). */
  readonly publishableKey: string | null;
  createIntent(input: {
    amountCents: number;
    currency: string;
    metadata: Record<string, string>;
    /** The same key returns the same intent (a retried request charges once). */
    idempotencyKey: string;
  }): Promise<PaymentIntent>;
  retrieveIntent(id: string): Promise<PaymentIntent | undefined>;
  /**
   * An open intent again, with a client secret for the paying browser (an unpaid order reuses its
   * intent rather than creating one per 'Make Payment'); undefined when unknown.
   */
  resumeIntent(id: string): Promise<PaymentIntent | undefined>;
  /**
   * Refunds a succeeded payment, in full unless `amountCents` says less. The same idempotency key
   * refunds once however often it is asked (the first refund is answered again).
   */
  refund(
    paymentIntentId: string,
    amountCents?: number,
    options?: { idempotencyKey?: string },
  ): Promise<PaymentRefund>;
  /** The intent a client secret belongs to (the secret is `<intent id>_secret_<random>`). */
  intentIdOf(clientSecret: string): string | undefined;
  /** The sandbox's card form: confirms with a card (our own form posts here). */
  confirmWithCard?(clientSecret: string, card: SandboxCard): Promise<PaymentIntent | undefined>;
  /** The sandbox's extra confirmation step (3-D Secure in Stripe's test cards). */
  authenticate?(clientSecret: string, approve: boolean): Promise<PaymentIntent | undefined>;
  /** Stripe: verifies a webhook's signature and reads the event; throws when it does not verify. */
  verifyWebhook?(rawBody: Buffer, signature: string): PaymentEvent;
}
