import Stripe from 'stripe';
import type { IntentStatus, PaymentEvent, PaymentIntent, PaymentRefund, PaymentsPort } from './payments';

export interface StripeSettings {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** Tests point the SDK at a local server speaking the few endpoints used. */
  apiBase?: { host: string; port: number; protocol: 'http' | 'https' };
}

interface StripeIntentLike {
  id: string;
  client_secret?: string | null;
  status: string;
  amount: number;
  currency: string;
  metadata?: Record<string, string> | null;
  latest_charge?: unknown;
  last_payment_error?: { code?: string | null; decline_code?: string | null; message?: string | null } | null;
}

/** Brand and last four digits of the charge that paid the intent, when Stripe expanded it. */
function cardOf(intent: StripeIntentLike): PaymentIntent['card'] {
  const charge = intent.latest_charge as
    | { payment_method_details?: { card?: { brand?: string | null; last4?: string | null } | null } | null }
    | string
    | null
    | undefined;
  const card = typeof charge === 'object' ? charge?.payment_method_details?.card : undefined;
  return card?.brand && card.last4 ? { brand: card.brand, last4: card.last4 } : null;
}

function toIntent(intent: StripeIntentLike, withSecret: boolean): PaymentIntent {
  const err = intent.last_payment_error;
  return {
    id: intent.id,
    clientSecret: withSecret ? (intent.client_secret ?? null) : null,
    status: intent.status as IntentStatus,
    amountCents: intent.amount,
    currency: intent.currency,
    metadata: { ...(intent.metadata ?? {}) },
    card: cardOf(intent),
    lastError: err
      ? {
          code: err.decline_code ?? err.code ?? 'card_error',
          message: err.message ?? 'Your card was declined.',
        }
      : null,
  };
}

/** Stripe's Payment Intents (STRIPE_SECRET_KEY): the browser confirms with Stripe Elements. */
export function createStripeProcessor(settings: StripeSettings): PaymentsPort {
  const stripe = new Stripe(settings.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(settings.apiBase ?? {}),
  });

  return {
    kind: 'stripe',
    publishableKey: settings.publishableKey,

    intentIdOf(clientSecret) {
      return /^(pi_[A-Za-z0-9]+)_secret_[A-Za-z0-9]+$/.exec(clientSecret)?.[1];
    },

    async createIntent({ amountCents, currency, metadata, idempotencyKey }) {
      const intent = await stripe.paymentIntents.create(
        { amount: amountCents, currency, metadata, automatic_payment_methods: { enabled: true } },
        { idempotencyKey },
      );
      return toIntent(intent as unknown as StripeIntentLike, true);
    },

    async retrieveIntent(id) {
      if (!/^pi_[A-Za-z0-9]+$/.test(id)) return undefined;
      try {
        const intent = await stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] });
        return toIntent(intent as unknown as StripeIntentLike, false);
      } catch (err) {
        if ((err as { statusCode?: number }).statusCode === 404) return undefined;
        throw err;
      }
    },

    async resumeIntent(id) {
      if (!/^pi_[A-Za-z0-9]+$/.test(id)) return undefined;
      try {
        // Read with the secret key, an intent carries its client secret.
        const intent = await stripe.paymentIntents.retrieve(id);
        return toIntent(intent as unknown as StripeIntentLike, true);
      } catch (err) {
        if ((err as { statusCode?: number }).statusCode === 404) return undefined;
        throw err;
      }
    },

    async refund(paymentIntentId, amountCents, options): Promise<PaymentRefund> {
      const refund = await stripe.refunds.create(
        { payment_intent: paymentIntentId, ...(amountCents !== undefined ? { amount: amountCents } : {}) },
        options?.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : undefined,
      );
      return {
        id: refund.id,
        paymentIntentId,
        amountCents: refund.amount,
        status: (refund.status ?? 'pending') as PaymentRefund['status'],
      };
    },

    verifyWebhook(rawBody, signature): PaymentEvent {
      const event = stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret);
      const object = (event.data as { object?: { object?: string } }).object;
      return {
        id: event.id,
        type: event.type,
        intent:
          object?.object === 'payment_intent' ? toIntent(object as unknown as StripeIntentLike, false) : null,
      };
    },
  };
}
