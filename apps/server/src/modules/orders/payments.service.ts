import type {
  CreatePaymentIntentBody,
  CreatePurchaseBody,
  PaymentConfig,
  PaymentIntentResponse,
  PaymentResult,
  Purchase,
  SandboxCard,
} from '@mi/contracts/orders';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { PaymentIntent, PaymentsPort } from '../../ports/payments/payments';
import { actorAudit, type AuditRecorder } from '../audit';
import type { OrdersRepository, PaymentRow } from './orders.repository';
import type { PaymentFulfilment } from './payment-fulfilment';
import { createPaymentIntent, type PaymentIntentDeps } from './payment-intents';
import { PAYMENT_NOT_FOUND, type Actor } from './purchase-view';

export interface PaymentsDeps extends PaymentIntentDeps {
  repo: PaymentIntentDeps['repo'] & Pick<OrdersRepository, 'findPayment' | 'updatePaymentStatus'>;
  payments: PaymentsPort;
  fulfilment: PaymentFulfilment;
  audit: AuditRecorder;
  now: () => Date;
}

/** The caller's own payment named by its processor id, or the one 404. */
async function requireOwnPayment(
  deps: PaymentsDeps,
  actor: Actor,
  intentId: string | undefined,
  meta: RequestMeta,
  action: string,
) {
  const payment = intentId ? await deps.repo.findPayment(deps.payments.kind, intentId) : undefined;
  if (!payment || payment.userId !== actor.id) {
    await actorAudit(deps.audit)(
      actor,
      action,
      { type: 'payment', id: intentId ?? null },
      meta,
      {},
      'denied',
    );
    throw new AppError('NOT_FOUND', PAYMENT_NOT_FOUND);
  }
  return payment;
}

/** Records a confirmation attempt's outcome and, when it succeeded, the order. */
async function settle(
  deps: PaymentsDeps,
  actor: Actor,
  payment: PaymentRow,
  intent: PaymentIntent,
  meta: RequestMeta,
  action: string,
): Promise<PaymentResult> {
  await deps.repo.updatePaymentStatus(payment.id, {
    status: intent.status,
    cardBrand: intent.card?.brand ?? null,
    cardLast4: intent.card?.last4 ?? null,
    updatedAt: deps.now(),
  });
  const failed = intent.status === 'requires_payment_method' ? intent.lastError : null;
  await actorAudit(deps.audit)(
    actor,
    action,
    { type: 'payment', id: payment.id },
    meta,
    { intentId: intent.id, status: intent.status, card: intent.card, error: failed?.code ?? null },
    failed ? 'failure' : 'success',
  );
  const purchase = await deps.fulfilment.fulfil(payment, intent, actor, meta);
  return {
    paymentIntentId: intent.id,
    status: intent.status === 'requires_confirmation' ? 'requires_payment_method' : intent.status,
    error: failed,
    purchase,
  };
}

/**
 * POST /api/purchases as the specification's client sends it after paying: accepted only for
 * the caller's succeeded payment of that service and provider, and answers the one purchase
 * that payment made (so sending it twice creates nothing more).
 */
export async function recordPurchase(
  deps: PaymentsDeps,
  actor: Actor,
  body: CreatePurchaseBody,
  meta: RequestMeta,
): Promise<Purchase> {
  const payment = await requireOwnPayment(deps, actor, body.paymentIntentId, meta, 'purchase.create');
  const refuse = async (reason: string, message: string) => {
    await actorAudit(deps.audit)(
      actor,
      'purchase.create',
      { type: 'payment', id: payment.id },
      meta,
      { reason },
      'denied',
    );
    throw new AppError('UNPROCESSABLE', message);
  };
  if (
    (body.user && body.user !== actor.id) ||
    body.service !== payment.serviceId ||
    body.provider !== payment.providerId
  )
    return refuse('other_offer', 'This payment was not made for this service and provider.');
  if (body.study && body.study !== payment.studyId)
    return refuse('other_study', 'This payment was not made for this study.');
  if (body.cost !== undefined && Math.round(body.cost * 100) !== payment.amountCents)
    return refuse('cost_mismatch', 'The cost does not match the price paid.');
  const intent = await deps.payments.retrieveIntent(payment.intentId);
  if (!intent || intent.status !== 'succeeded') {
    await actorAudit(deps.audit)(
      actor,
      'purchase.create',
      { type: 'payment', id: payment.id },
      meta,
      { reason: 'not_paid' },
      'denied',
    );
    throw new AppError('CONFLICT', 'This payment has not succeeded.');
  }
  return (await deps.fulfilment.fulfil(payment, intent, actor, meta))!;
}

/**
 * Card payments: the intent (its amount is the catalogue's or the order's, never the body's),
 * our card form's confirmation, Stripe's completion, and the purchase a succeeded payment made.
 */
export function createPaymentsService(deps: PaymentsDeps) {
  const { payments } = deps;
  const audit = actorAudit(deps.audit);

  return {
    paymentConfig(): PaymentConfig {
      return { processor: payments.kind, publishableKey: payments.publishableKey };
    },

    /**
     * POST /api/payments/create-payment-intent: the amount is the offer's price (a new purchase)
     * or the order's cost (an order waiting for payment); a body amount that disagrees is refused.
     */
    createPaymentIntent: (
      actor: Actor,
      body: CreatePaymentIntentBody,
      meta: RequestMeta,
    ): Promise<PaymentIntentResponse> => createPaymentIntent(deps, actor, body, meta),

    /** POST /api/payments/sandbox/confirm: our card form, sent to the sandbox processor. */
    async confirmSandbox(
      actor: Actor,
      clientSecret: string,
      card: SandboxCard,
      meta: RequestMeta,
    ): Promise<PaymentResult> {
      if (!payments.confirmWithCard) throw new AppError('NOT_FOUND', 'Not found');
      const payment = await requireOwnPayment(
        deps,
        actor,
        payments.intentIdOf(clientSecret),
        meta,
        'payment.confirm',
      );
      const intent = await payments.confirmWithCard(clientSecret, card);
      if (!intent) {
        await audit(
          actor,
          'payment.confirm',
          { type: 'payment', id: payment.id },
          meta,
          { reason: 'bad_secret' },
          'denied',
        );
        throw new AppError('NOT_FOUND', PAYMENT_NOT_FOUND);
      }
      return settle(deps, actor, payment, intent, meta, 'payment.confirm');
    },

    /** POST /api/payments/sandbox/authenticate: the extra confirmation step some cards ask for. */
    async authenticateSandbox(
      actor: Actor,
      clientSecret: string,
      approve: boolean,
      meta: RequestMeta,
    ): Promise<PaymentResult> {
      if (!payments.authenticate) throw new AppError('NOT_FOUND', 'Not found');
      const payment = await requireOwnPayment(
        deps,
        actor,
        payments.intentIdOf(clientSecret),
        meta,
        'payment.authenticate',
      );
      const intent = await payments.authenticate(clientSecret, approve);
      if (!intent) throw new AppError('NOT_FOUND', PAYMENT_NOT_FOUND);
      return settle(deps, actor, payment, intent, meta, 'payment.authenticate');
    },

    /** POST /api/payments/complete: the browser's confirmation (Stripe.js) says it succeeded; the processor decides. */
    async completePayment(actor: Actor, intentId: string, meta: RequestMeta): Promise<PaymentResult> {
      const payment = await requireOwnPayment(deps, actor, intentId, meta, 'payment.complete');
      const intent = await payments.retrieveIntent(payment.intentId);
      if (!intent) throw new AppError('NOT_FOUND', PAYMENT_NOT_FOUND);
      return settle(deps, actor, payment, intent, meta, 'payment.complete');
    },

    /**
     * POST /api/purchases as the specification's client sends it after paying: accepted only for
     * the caller's succeeded payment of that service and provider, and answers the one purchase
     * that payment made (so sending it twice creates nothing more).
     */
    recordPurchase: (actor: Actor, body: CreatePurchaseBody, meta: RequestMeta): Promise<Purchase> =>
      recordPurchase(deps, actor, body, meta),
  };
}
export type PaymentsService = ReturnType<typeof createPaymentsService>;
