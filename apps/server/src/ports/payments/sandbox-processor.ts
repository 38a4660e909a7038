import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  CARD_MESSAGES,
  cardBrand,
  cardDigits,
  cardFormError,
  type CardErrorCode,
  type SandboxCard,
} from '@mi/contracts/orders';
import type { IntentStatus, PaymentIntent, PaymentsPort } from './payments';
import type { SandboxIntentRow, SandboxIntentsRepository } from './sandbox-intents.repository';

/**
 * Stripe's test cards the sandbox reproduces (https://docs.stripe.com/testing). Any other card
 * that passes the form checks succeeds, as in Stripe's test mode.
 */
const TEST_CARDS: Record<
  string,
  'card_declined' | 'insufficient_funds' | 'requires_action' | 'expired_card'
> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000002500003155': 'requires_action',
  '4000002760003184': 'requires_action',
  '4000000000000069': 'expired_card',
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function toIntent(row: SandboxIntentRow, clientSecret: string | null = null): PaymentIntent {
  const code = row.lastErrorCode as CardErrorCode | null;
  return {
    id: row.id,
    clientSecret,
    status: row.status as IntentStatus,
    amountCents: row.amountCents,
    currency: row.currency,
    metadata: row.metadata,
    card: row.cardBrand && row.cardLast4 ? { brand: row.cardBrand, last4: row.cardLast4 } : null,
    lastError: code ? { code, message: CARD_MESSAGES[code] ?? CARD_MESSAGES.card_declined } : null,
  };
}

/**
 * The embedded card processor: payment intents in its own table, confirmed by our card form. It
 * reads the card number once, to decide the outcome, and keeps only brand and last four digits.
 */
/** A sandbox object id (`pi_sbx_…`, `re_sbx_…`) derived from what makes it unique. */
function sandboxId(secret: string, prefix: string, unique: string): string {
  const digest = createHmac('sha256', secret).update(unique).digest();
  return `${prefix}_${digest.toString('base64url').replace(/[-_]/g, '').slice(0, 24).padEnd(24, '0')}`;
}

/**
 * What confirming with this card does to an intent waiting for a payment method: a form error keeps
 * it waiting; otherwise the test card's outcome (TEST_CARDS), or success, with the card's brand and
 * last four digits.
 */
function cardDecision(
  card: SandboxCard,
  at: Date,
): Partial<Pick<SandboxIntentRow, 'status' | 'lastErrorCode' | 'cardBrand' | 'cardLast4'>> {
  const invalid = cardFormError(card, at);
  if (invalid) return { lastErrorCode: invalid };
  const digits = cardDigits(card.number);
  const outcome = TEST_CARDS[digits];
  const values =
    outcome === 'requires_action'
      ? { status: 'requires_action', lastErrorCode: null }
      : outcome
        ? { status: 'requires_payment_method', lastErrorCode: outcome }
        : { status: 'succeeded', lastErrorCode: null };
  return { ...values, cardBrand: cardBrand(digits), cardLast4: digits.slice(-4) };
}

export function createSandboxProcessor(deps: {
  repo: SandboxIntentsRepository;
  /** Derives intent ids from idempotency keys (the same key, the same intent). */
  secret: string;
  now: () => Date;
}): PaymentsPort {
  const { repo } = deps;

  function intentIdOf(clientSecret: string): string | undefined {
    const m = /^(pi_sbx_[A-Za-z0-9]{24})_secret_[A-Za-z0-9_-]{20,}$/.exec(clientSecret);
    return m?.[1];
  }

  /** The intent if the client secret is its own. */
  async function bySecret(clientSecret: string): Promise<SandboxIntentRow | undefined> {
    const id = intentIdOf(clientSecret);
    const row = id ? await repo.find(id) : undefined;
    if (!row) return undefined;
    const a = Buffer.from(row.secretHash, 'hex');
    const b = Buffer.from(sha256(clientSecret), 'hex');
    return a.length === b.length && timingSafeEqual(a, b) ? row : undefined;
  }

  return {
    kind: 'sandbox',
    publishableKey: null,
    intentIdOf,

    async createIntent({ amountCents, currency, metadata, idempotencyKey }) {
      const id = sandboxId(deps.secret, 'pi_sbx', `sandbox-intent:${idempotencyKey}`);
      const clientSecret = `${id}_secret_${randomBytes(18).toString('base64url')}`;
      const at = deps.now();
      const row = await repo.insert({
        id,
        secretHash: sha256(clientSecret),
        amountCents,
        currency,
        status: 'requires_payment_method',
        metadata,
        createdAt: at,
        updatedAt: at,
      });
      // A repeated key finds the intent made the first time, whose secret went to that caller only.
      if (row.secretHash !== sha256(clientSecret)) {
        const fresh = `${id}_secret_${randomBytes(18).toString('base64url')}`;
        const moved = await repo.transition(id, [row.status], { secretHash: sha256(fresh), updatedAt: at });
        return toIntent(moved ?? row, moved ? fresh : null);
      }
      return toIntent(row, clientSecret);
    },

    async retrieveIntent(id) {
      const row = await repo.find(id);
      return row && toIntent(row);
    },

    async resumeIntent(id) {
      const row = await repo.find(id);
      if (!row) return undefined;
      // A new secret for this caller; the one given earlier stops working.
      const fresh = `${id}_secret_${randomBytes(18).toString('base64url')}`;
      const moved = await repo.transition(id, [row.status], {
        secretHash: sha256(fresh),
        updatedAt: deps.now(),
      });
      return moved ? toIntent(moved, fresh) : toIntent(row);
    },

    async refund(paymentIntentId, amountCents, options) {
      const key = options?.idempotencyKey ?? randomBytes(18).toString('base64url');
      const id = sandboxId(deps.secret, 're_sbx', `sandbox-refund:${key}`);
      const row = await repo.refund(id, paymentIntentId, amountCents, deps.now());
      return { id: row.id, paymentIntentId: row.intentId, amountCents: row.amountCents, status: 'succeeded' };
    },

    async confirmWithCard(clientSecret: string, card: SandboxCard) {
      const row = await bySecret(clientSecret);
      if (!row) return undefined;
      if (row.status !== 'requires_payment_method') return toIntent(row, clientSecret);
      const at = deps.now();
      const moved = await repo.transition(row.id, ['requires_payment_method'], {
        ...cardDecision(card, at),
        updatedAt: at,
      });
      // Another confirmation got there first: report what it did.
      return toIntent(moved ?? (await repo.find(row.id))!, clientSecret);
    },

    async authenticate(clientSecret: string, approve: boolean) {
      const row = await bySecret(clientSecret);
      if (!row) return undefined;
      if (row.status !== 'requires_action') return toIntent(row, clientSecret);
      const moved = await repo.transition(row.id, ['requires_action'], {
        status: approve ? 'succeeded' : 'requires_payment_method',
        lastErrorCode: approve ? null : 'authentication_failed',
        updatedAt: deps.now(),
      });
      return toIntent(moved ?? (await repo.find(row.id))!, clientSecret);
    },
  };
}
