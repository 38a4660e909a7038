import { createHash, randomUUID } from 'node:crypto';
import type { CreatePaymentIntentBody, PaymentIntentResponse } from '@mi/contracts/orders';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { PaymentsPort } from '../../ports/payments/payments';
import { actorAudit, type AuditRecorder } from '../audit';
import { mayActOnOrder } from './order-access';
import type { OrderPrerequisites } from './order-prerequisites';
import type { OrdersRepository } from './orders.repository';
import { AMOUNT_MISMATCH, CURRENCY, ORDER_NOT_FOUND, type Actor } from './purchase-view';

/** A UUID derived from a name: the same order asks the processor with the same payment id. */
function uuidFrom(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** What a payment intent pays: a new purchase of an offer, or an order waiting for payment. */
interface PaymentTarget {
  serviceId: string;
  providerId: string;
  studyId: string | null;
  orderId: string | null;
  amountCents: number;
}

export interface PaymentIntentDeps {
  repo: Pick<
    OrdersRepository,
    'findOrder' | 'findOpenOrderPayment' | 'countFinishedOrderPayments' | 'insertOrFindPayment'
  >;
  payments: Pick<PaymentsPort, 'kind' | 'resumeIntent' | 'createIntent'>;
  prerequisites: OrderPrerequisites;
  audit: AuditRecorder;
  now: () => Date;
}

/** The caller's order waiting for payment, or the one 404. */
async function orderTarget(
  deps: PaymentIntentDeps,
  actor: Actor,
  orderId: string,
  meta: RequestMeta,
): Promise<PaymentTarget> {
  const found = await deps.repo.findOrder(orderId);
  const order = found && mayActOnOrder(actor, 'buyer', found) ? found : undefined;
  if (!order || order.status !== 'awaiting_payment') {
    await actorAudit(deps.audit)(
      actor,
      'payment.intent_create',
      { type: 'order', id: orderId },
      meta,
      {},
      'denied',
    );
    throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
  }
  return {
    serviceId: order.serviceId,
    providerId: order.providerId,
    studyId: order.studyId,
    orderId: order.id,
    amountCents: order.costCents,
  };
}

/** A new purchase: the provider's offer, for a study of the caller's own. */
async function offerTarget(
  deps: PaymentIntentDeps,
  actor: Actor,
  body: { serviceId: string; providerId: string; studyId: string },
  meta: RequestMeta,
): Promise<PaymentTarget> {
  const offer = await deps.prerequisites.requireOffer(
    actor,
    body.serviceId,
    body.providerId,
    meta,
    'payment.intent_create',
  );
  const study = await deps.prerequisites.requireOwnStudy(actor, body.studyId, meta, 'payment.intent_create');
  return {
    serviceId: offer.service.id,
    providerId: offer.providerId,
    studyId: study.id,
    orderId: null,
    amountCents: offer.priceCents,
  };
}

/** A body amount that disagrees with the server's is refused (audited as denied). */
async function refuseOtherAmount(
  deps: PaymentIntentDeps,
  actor: Actor,
  amount: number | undefined,
  target: PaymentTarget,
  meta: RequestMeta,
) {
  if (amount === undefined || amount === target.amountCents) return;
  await actorAudit(deps.audit)(
    actor,
    'payment.intent_create',
    { type: 'service', id: target.serviceId },
    meta,
    {
      reason: 'amount_mismatch',
      amountCents: target.amountCents,
    },
    'denied',
  );
  throw new AppError('UNPROCESSABLE', AMOUNT_MISMATCH);
}

/**
 * One open intent per unpaid order: each 'Make Payment' resumes it, so the order cannot be paid
 * twice by two forms. When there is none to resume, how many of the order's payments are over
 * (ours say canceled or succeeded, or the processor already says so of the one ours call open).
 */
async function resumeOrderIntent(
  deps: PaymentIntentDeps,
  actor: Actor,
  orderId: string,
  meta: RequestMeta,
): Promise<PaymentIntentResponse | { paymentsOver: number }> {
  const open = await deps.repo.findOpenOrderPayment(orderId, deps.payments.kind);
  const resumed = open ? await deps.payments.resumeIntent(open.intentId) : undefined;
  const overAtProcessor = resumed?.status === 'canceled' || resumed?.status === 'succeeded';
  if (!open || !resumed?.clientSecret || overAtProcessor)
    return {
      paymentsOver: (await deps.repo.countFinishedOrderPayments(orderId)) + (overAtProcessor ? 1 : 0),
    };
  await actorAudit(deps.audit)(actor, 'payment.intent_resume', { type: 'payment', id: open.id }, meta, {
    intentId: resumed.id,
    processor: deps.payments.kind,
    amountCents: open.amountCents,
    orderId,
  });
  return {
    clientSecret: resumed.clientSecret,
    paymentIntentId: resumed.id,
    amount: open.amountCents,
    currency: open.currency,
    processor: deps.payments.kind,
  };
}

/** A new intent at the processor, and its payment row. */
async function openIntent(
  deps: PaymentIntentDeps,
  actor: Actor,
  target: PaymentTarget,
  meta: RequestMeta,
  paymentsOver = 0,
): Promise<PaymentIntentResponse> {
  // For an order the payment id is derived from the order and how many of its payments are over,
  // which stays the same until one of them ends: two simultaneous clicks ask the processor with one
  // idempotency key, and get one intent, whichever of them records it first.
  const paymentId = target.orderId
    ? uuidFrom(`order-payment:${target.orderId}:${paymentsOver}`)
    : randomUUID();
  const intent = await deps.payments.createIntent({
    amountCents: target.amountCents,
    currency: CURRENCY,
    metadata: {
      paymentId,
      userId: actor.id,
      serviceId: target.serviceId,
      providerId: target.providerId,
      ...(target.studyId ? { studyId: target.studyId } : {}),
      ...(target.orderId ? { orderId: target.orderId } : {}),
    },
    idempotencyKey: paymentId,
  });
  const at = deps.now();
  await deps.repo.insertOrFindPayment({
    id: paymentId,
    processor: deps.payments.kind,
    intentId: intent.id,
    userId: actor.id,
    serviceId: target.serviceId,
    providerId: target.providerId,
    studyId: target.studyId,
    orderId: target.orderId,
    amountCents: target.amountCents,
    currency: CURRENCY,
    status: intent.status,
    createdAt: at,
    updatedAt: at,
  });
  await actorAudit(deps.audit)(actor, 'payment.intent_create', { type: 'payment', id: paymentId }, meta, {
    intentId: intent.id,
    processor: deps.payments.kind,
    amountCents: target.amountCents,
    serviceId: target.serviceId,
    providerId: target.providerId,
    orderId: target.orderId,
  });
  return {
    clientSecret: intent.clientSecret ?? '',
    paymentIntentId: intent.id,
    amount: target.amountCents,
    currency: CURRENCY,
    processor: deps.payments.kind,
  };
}

/**
 * POST /api/payments/create-payment-intent: the amount is the offer's price (a new purchase) or
 * the order's cost (an order waiting for payment); a body amount that disagrees is refused.
 */
export async function createPaymentIntent(
  deps: PaymentIntentDeps,
  actor: Actor,
  body: CreatePaymentIntentBody,
  meta: RequestMeta,
): Promise<PaymentIntentResponse> {
  const target =
    'orderId' in body
      ? await orderTarget(deps, actor, body.orderId, meta)
      : await offerTarget(deps, actor, body, meta);
  await refuseOtherAmount(deps, actor, body.amount, target, meta);
  if (!target.orderId) return openIntent(deps, actor, target, meta);
  const resumed = await resumeOrderIntent(deps, actor, target.orderId, meta);
  return 'paymentsOver' in resumed ? openIntent(deps, actor, target, meta, resumed.paymentsOver) : resumed;
}
