import { createHash, randomUUID } from 'node:crypto';
import {
  formatDollars,
  missingStudyData,
  type CreateOrderBody,
  type CreatePaymentIntentBody,
  type CreatePurchaseBody,
  type PaymentConfig,
  type PaymentIntentResponse,
  type PaymentResult,
  type Purchase,
  type SandboxCard,
} from '@mi/contracts/orders';
import { RATING_EDIT_DAYS } from '@mi/contracts/directory';
import { AppError } from '../../http/app-error';
import type { PaymentIntent, PaymentsPort } from '../../ports/payments/payments';
import type { AccessService } from '../access';
import { actorAudit, type AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { MailService } from '../mail';
import { paymentReceiptEmail, refundReceiptEmail } from '../mail';
import type { ServicesService } from '../services';
import type { UsersRepository } from '../accounts';
import { mayActOnOrder } from './order-access';
import type { OrderEventsEmitter } from './order-events';
import {
  REFUNDABLE_STATUSES,
  type OrderStatusValue,
  type OrderView,
  type OrdersRepository,
  type PaymentRow,
} from './orders.repository';

export const PURCHASES_NOT_FOUND = 'No purchases found for this user';
export const PAYMENT_NOT_FOUND = 'Payment not found.';
export const ORDER_NOT_FOUND = 'Order not found.';
export const SERVICE_NOT_FOUND = 'This service is not offered by this provider.';
export const AMOUNT_MISMATCH = 'The amount does not match the price of this service.';
export const CURRENCY = 'usd';

/** A UUID derived from a name: the same order asks the processor with the same payment id. */
function uuidFrom(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The user the caller acts as. */
interface Actor {
  id: string;
  role: string | null;
  email: string;
}

export function toPurchase(v: OrderView): Purchase {
  return {
    id: v.order.id,
    createdAt: (v.order.paidAt ?? v.order.createdAt).toISOString(),
    cost: v.order.costCents / 100,
    orderStatus: v.order.status,
    service: v.service,
    provider: v.provider,
    rating: v.rating
      ? {
          stars: v.rating.stars,
          comment: v.rating.comment,
          editableUntil: new Date(v.rating.createdAt.getTime() + RATING_EDIT_DAYS * 86_400_000).toISOString(),
        }
      : null,
    studyId: v.order.studyId,
    paidAt: v.order.paidAt?.toISOString() ?? null,
    card:
      v.payment?.cardBrand && v.payment.cardLast4
        ? { brand: v.payment.cardBrand, last4: v.payment.cardLast4 }
        : null,
    paymentIntentId: v.payment?.intentId ?? null,
    // What the processor gave back of the order's own payment: the refund the user sees on the card.
    refundedAmount: v.payment && v.payment.refundedCents > 0 ? v.payment.refundedCents / 100 : null,
    refundedAt:
      v.payment && v.payment.refundedCents > 0
        ? (v.payment.refundedAt ?? v.order.refundedAt ?? v.order.updatedAt).toISOString()
        : null,
    automatedReportAt: v.automatedReportAt?.toISOString() ?? null,
  };
}

export interface OrdersDeps {
  repo: OrdersRepository;
  catalogue: Pick<ServicesService, 'findOffer'>;
  access: Pick<AccessService, 'requireOwner'>;
  payments: PaymentsPort;
  users: Pick<UsersRepository, 'findById'>;
  mail: Pick<MailService, 'send'>;
  audit: AuditRecorder;
  appUrl: string;
  now: () => Date;
  /**
   * The order-events hub (order-events.ts): `paid` once per order (the automated analysis queues
   * its job there), `ended` when an order is refunded or cancelled (vendor credentials end).
   */
  events?: OrderEventsEmitter;
}

/**
 * Orders of analysis services and the card payments that pay them. Every amount comes from the
 * catalogue (ServicesService.findOffer) or from the order; a payment becomes an order only once
 * the processor says it succeeded, exactly once (OrdersRepository.recordPaid), whichever of the
 * browser's confirmation, POST /api/purchases and the processor's webhook arrives first.
 */
export function createOrdersService(deps: OrdersDeps) {
  const { repo, payments } = deps;

  const audit = actorAudit(deps.audit);

  /** The caller's own study, or the one 404 (a study shared with them is not theirs to order for). */
  const requireOwnStudy = (actor: Actor, studyId: string, meta: RequestMeta, auditAction: string) =>
    deps.access.requireOwner(
      { userId: actor.id, role: actor.role, via: 'session', studyId: null },
      studyId,
      meta,
      { auditAction },
    );

  async function requireOffer(
    actor: Actor,
    serviceId: string,
    providerId: string,
    meta: RequestMeta,
    action: string,
  ) {
    const offer = await deps.catalogue.findOffer(serviceId, providerId);
    if (!offer) {
      await audit(
        actor,
        action,
        { type: 'service', id: serviceId },
        meta,
        { providerId, reason: 'no_offer' },
        'denied',
      );
      throw new AppError('NOT_FOUND', SERVICE_NOT_FOUND);
    }
    return offer;
  }

  /** Where a paid order starts: data missing, a professional's approval, or straight to work. */
  async function initialStatus(payment: PaymentRow): Promise<OrderStatusValue> {
    const offer = await deps.catalogue.findOffer(payment.serviceId, payment.providerId);
    const facts = payment.studyId ? await repo.studyFacts(payment.studyId) : undefined;
    if (missingStudyData(offer?.service.supportedModalities ?? [], facts)) return 'pending_data_upload';
    return offer?.service.type === 'AI' ? 'in_progress' : 'pending_approval';
  }

  async function view(orderId: string): Promise<Purchase> {
    const found = await repo.findView(orderId);
    if (!found) throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
    return toPurchase(found);
  }

  /**
   * A payment the processor reports succeeded becomes (or pays) its order, once. The amount and
   * currency must be the ones the payment was made for; the receipt goes out on the first call.
   */
  async function fulfil(
    payment: PaymentRow,
    intent: PaymentIntent,
    actor: { id: string; role: string | null } | null,
    meta: RequestMeta | undefined,
  ): Promise<Purchase | null> {
    if (intent.status !== 'succeeded') return null;
    if (intent.amountCents !== payment.amountCents || intent.currency !== payment.currency) {
      await audit(
        actor,
        'payment.fulfil',
        { type: 'payment', id: payment.id },
        meta,
        {
          reason: 'amount_mismatch',
          intentId: intent.id,
        },
        'failure',
      );
      throw new AppError('CONFLICT', 'The payment does not match its order.');
    }
    const at = deps.now();
    const { orderId, created } = await repo.recordPaid(payment, {
      status: await initialStatus(payment),
      at,
      cardBrand: intent.card?.brand ?? null,
      cardLast4: intent.card?.last4 ?? null,
    });
    if (!orderId) {
      // The order it was for was cancelled or paid by another payment meanwhile (two tabs, a
      // webhook racing a confirmation): this payment is refunded in full, once.
      await audit(
        actor,
        'payment.unapplied',
        { type: 'payment', id: payment.id },
        meta,
        {
          orderId: payment.orderId,
        },
        'failure',
      );
      await refundPayment(payment, null, 'This order was already paid or cancelled.', actor, meta);
      throw new AppError('CONFLICT', 'This order was already paid or cancelled. Your payment was refunded.');
    }
    const purchase = await view(orderId);
    if (created) {
      await audit(actor, 'order.paid', { type: 'order', id: orderId }, meta, {
        paymentId: payment.id,
        processor: payment.processor,
        amountCents: payment.amountCents,
        status: purchase.orderStatus,
        card: purchase.card,
      });
      const user = await deps.users.findById(payment.userId);
      if (user)
        await deps.mail.send(
          user.email,
          paymentReceiptEmail({
            serviceName: purchase.service.name,
            providerName: purchase.provider.name,
            amount: formatDollars(purchase.cost),
            card: purchase.card ? `${purchase.card.brand} ending in ${purchase.card.last4}` : 'card',
            orderId,
            date: at.toUTCString(),
            link: new URL('/services/purchased', deps.appUrl).toString(),
          }),
        );
      // The payment stands whatever happens here (the hub logs a listener's failure);
      // analysis-sweep queues what this missed.
      await deps.events?.emit('paid', { orderId, status: purchase.orderStatus });
    }
    return purchase;
  }

  /**
   * Refunds what is left of a succeeded payment through the processor (one idempotency key per
   * payment, so asking twice refunds once) and records it: on the payment, and for `order` its
   * move to `refunded`. Audit and receipt only for the call that did it.
   */
  async function refundPayment(
    payment: PaymentRow,
    order: { id: string } | null,
    reason: string,
    actor: { id: string; role: string | null } | null,
    meta: RequestMeta | undefined,
  ): Promise<boolean> {
    const target = order ? { type: 'order', id: order.id } : { type: 'payment', id: payment.id };
    const action = order ? 'order.refund' : 'payment.refund';
    let refund;
    try {
      refund = payment.refundId
        ? { id: payment.refundId, amountCents: 0 }
        : await payments.refund(payment.intentId, payment.amountCents - payment.refundedCents, {
            idempotencyKey: `refund-${payment.id}`,
          });
    } catch (err) {
      await audit(
        actor,
        action,
        target,
        meta,
        { paymentId: payment.id, reason, error: (err as Error).name },
        'failure',
      );
      throw new AppError('CONFLICT', 'The refund could not be made. Please try again later.');
    }
    const at = deps.now();
    const { refunded } = await repo.recordRefund(payment.id, order?.id ?? null, {
      refundId: refund.id,
      amountCents: refund.amountCents,
      reason,
      at,
    });
    if (!refunded) return false;
    if (order) await deps.events?.emit('ended', { orderId: order.id, status: 'refunded' });
    await audit(actor, action, target, meta, {
      paymentId: payment.id,
      refundId: refund.id,
      amountCents: payment.amountCents - payment.refundedCents,
      processor: payment.processor,
      reason,
    });
    const [user, serviceName] = await Promise.all([
      deps.users.findById(payment.userId),
      repo.serviceName(payment.serviceId),
    ]);
    if (user)
      await deps.mail.send(
        user.email,
        refundReceiptEmail({
          serviceName: serviceName ?? 'Analysis service',
          amount: formatDollars((payment.amountCents - payment.refundedCents) / 100),
          card:
            payment.cardBrand && payment.cardLast4
              ? `${payment.cardBrand} ending in ${payment.cardLast4}`
              : 'card',
          reference: order?.id ?? payment.id,
          reason,
          date: at.toUTCString(),
          link: new URL('/services/purchased', deps.appUrl).toString(),
        }),
      );
    return true;
  }

  /** The caller's own payment named by its processor id, or the one 404. */
  async function requireOwnPayment(
    actor: Actor,
    intentId: string | undefined,
    meta: RequestMeta,
    action: string,
  ) {
    const payment = intentId ? await repo.findPayment(payments.kind, intentId) : undefined;
    if (!payment || payment.userId !== actor.id) {
      await audit(actor, action, { type: 'payment', id: intentId ?? null }, meta, {}, 'denied');
      throw new AppError('NOT_FOUND', PAYMENT_NOT_FOUND);
    }
    return payment;
  }

  /** Records a confirmation attempt's outcome and, when it succeeded, the order. */
  async function settle(
    actor: Actor,
    payment: PaymentRow,
    intent: PaymentIntent,
    meta: RequestMeta,
    action: string,
  ): Promise<PaymentResult> {
    await repo.updatePaymentStatus(payment.id, {
      status: intent.status,
      cardBrand: intent.card?.brand ?? null,
      cardLast4: intent.card?.last4 ?? null,
      updatedAt: deps.now(),
    });
    const failed = intent.status === 'requires_payment_method' ? intent.lastError : null;
    await audit(
      actor,
      action,
      { type: 'payment', id: payment.id },
      meta,
      { intentId: intent.id, status: intent.status, card: intent.card, error: failed?.code ?? null },
      failed ? 'failure' : 'success',
    );
    const purchase = await fulfil(payment, intent, actor, meta);
    return {
      paymentIntentId: intent.id,
      status: intent.status === 'requires_confirmation' ? 'requires_payment_method' : intent.status,
      error: failed,
      purchase,
    };
  }

  return {
    /**
     * Refunds a paid order in full and moves it to `refunded` (a professional declined it, it was
     * not accepted in time, an admin refunded it). Idempotent: a refunded order is answered as it
     * is, and concurrent calls refund once. `actor` is who did it (null for the server's jobs).
     */
    async refundOrder(
      orderId: string,
      reason: string,
      options: { actor?: { id: string; role: string | null } | null; meta?: RequestMeta } = {},
    ): Promise<Purchase> {
      const order = UUID.test(orderId) ? await repo.findOrder(orderId) : undefined;
      if (!order) throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
      if (order.status === 'refunded') return view(order.id);
      const payment = order.paymentId ? await repo.findPaymentById(order.paymentId) : undefined;
      if (!payment || !REFUNDABLE_STATUSES.includes(order.status)) {
        await audit(
          options.actor ?? null,
          'order.refund',
          { type: 'order', id: order.id },
          options.meta,
          { reason: 'not_refundable', status: order.status },
          'denied',
        );
        throw new AppError('CONFLICT', 'Only a paid order can be refunded.');
      }
      await refundPayment(payment, order, reason, options.actor ?? null, options.meta);
      return view(order.id);
    },

    paymentConfig(): PaymentConfig {
      return { processor: payments.kind, publishableKey: payments.publishableKey };
    },

    /** GET /api/purchases/user/{userId}: one's own orders, newest first; anyone else's is the one 404. */
    async listPurchases(actor: Actor, userId: string, meta: RequestMeta): Promise<Purchase[]> {
      if (userId !== actor.id) {
        await audit(actor, 'purchase.list', { type: 'user', id: userId }, meta, {}, 'denied');
        throw new AppError('NOT_FOUND', PURCHASES_NOT_FOUND);
      }
      return (await repo.listForUser(actor.id)).map(toPurchase);
    },

    /** POST /api/orders: 'Order Now' on the Analysis services page; the order waits for payment. */
    async createOrder(actor: Actor, body: CreateOrderBody, meta: RequestMeta): Promise<Purchase> {
      const offer = await requireOffer(actor, body.serviceId, body.providerId, meta, 'order.create');
      const study = await requireOwnStudy(actor, body.studyId, meta, 'order.create');
      const at = deps.now();
      const order = await repo.insertOrder({
        userId: actor.id,
        serviceId: offer.service.id,
        providerId: offer.providerId,
        studyId: study.id,
        costCents: offer.priceCents,
        status: 'awaiting_payment',
        createdAt: at,
        updatedAt: at,
      });
      await audit(actor, 'order.create', { type: 'order', id: order.id }, meta, {
        serviceId: offer.service.id,
        providerId: offer.providerId,
        studyId: study.id,
        costCents: offer.priceCents,
        status: order.status,
      });
      return view(order.id);
    },

    /** POST /api/orders/{id}/cancel: only an unpaid order can be cancelled. */
    async cancelOrder(actor: Actor, orderId: string, meta: RequestMeta): Promise<Purchase> {
      const order = UUID.test(orderId) ? await repo.findOrder(orderId) : undefined;
      if (!order || !mayActOnOrder(actor, 'buyer', order)) {
        await audit(actor, 'order.cancel', { type: 'order', id: orderId }, meta, {}, 'denied');
        throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
      }
      if (!(await repo.cancelAwaiting(orderId, actor.id, deps.now())))
        throw new AppError('CONFLICT', 'Only an order waiting for payment can be cancelled.');
      await audit(actor, 'order.cancel', { type: 'order', id: orderId }, meta, { from: 'awaiting_payment' });
      await deps.events?.emit('ended', { orderId, status: 'cancelled' });
      return view(orderId);
    },

    /**
     * POST /api/payments/create-payment-intent: the amount is the offer's price (a new purchase)
     * or the order's cost (an order waiting for payment); a body amount that disagrees is refused.
     */
    async createPaymentIntent(
      actor: Actor,
      body: CreatePaymentIntentBody,
      meta: RequestMeta,
    ): Promise<PaymentIntentResponse> {
      let target: {
        serviceId: string;
        providerId: string;
        studyId: string | null;
        orderId: string | null;
        amountCents: number;
      };
      if ('orderId' in body) {
        const found = await repo.findOrder(body.orderId);
        const order = found && mayActOnOrder(actor, 'buyer', found) ? found : undefined;
        if (!order || order.status !== 'awaiting_payment') {
          await audit(
            actor,
            'payment.intent_create',
            { type: 'order', id: body.orderId },
            meta,
            {},
            'denied',
          );
          throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
        }
        target = {
          serviceId: order.serviceId,
          providerId: order.providerId,
          studyId: order.studyId,
          orderId: order.id,
          amountCents: order.costCents,
        };
      } else {
        const offer = await requireOffer(
          actor,
          body.serviceId,
          body.providerId,
          meta,
          'payment.intent_create',
        );
        const study = await requireOwnStudy(actor, body.studyId, meta, 'payment.intent_create');
        target = {
          serviceId: offer.service.id,
          providerId: offer.providerId,
          studyId: study.id,
          orderId: null,
          amountCents: offer.priceCents,
        };
      }
      if (body.amount !== undefined && body.amount !== target.amountCents) {
        await audit(
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
      if (target.orderId) {
        // One open intent per unpaid order: each 'Make Payment' resumes it, so the order cannot
        // be paid twice by two forms.
        const open = await repo.findOpenOrderPayment(target.orderId, payments.kind);
        const resumed = open ? await payments.resumeIntent(open.intentId) : undefined;
        if (
          open &&
          resumed?.clientSecret &&
          resumed.status !== 'canceled' &&
          resumed.status !== 'succeeded'
        ) {
          await audit(actor, 'payment.intent_resume', { type: 'payment', id: open.id }, meta, {
            intentId: resumed.id,
            processor: payments.kind,
            amountCents: open.amountCents,
            orderId: target.orderId,
          });
          return {
            clientSecret: resumed.clientSecret,
            paymentIntentId: resumed.id,
            amount: open.amountCents,
            currency: open.currency,
            processor: payments.kind,
          };
        }
      }
      // For an order the payment id is derived from the order (and how many payments it had), so
      // two simultaneous first clicks ask the processor with one idempotency key: one intent.
      const paymentId = target.orderId
        ? uuidFrom(`order-payment:${target.orderId}:${await repo.countOrderPayments(target.orderId)}`)
        : randomUUID();
      const intent = await payments.createIntent({
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
      await repo.insertOrFindPayment({
        id: paymentId,
        processor: payments.kind,
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
      await audit(actor, 'payment.intent_create', { type: 'payment', id: paymentId }, meta, {
        intentId: intent.id,
        processor: payments.kind,
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
        processor: payments.kind,
      };
    },

    /** POST /api/payments/sandbox/confirm: our card form, sent to the sandbox processor. */
    async confirmSandbox(
      actor: Actor,
      clientSecret: string,
      card: SandboxCard,
      meta: RequestMeta,
    ): Promise<PaymentResult> {
      if (!payments.confirmWithCard) throw new AppError('NOT_FOUND', 'Not found');
      const payment = await requireOwnPayment(
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
      return settle(actor, payment, intent, meta, 'payment.confirm');
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
        actor,
        payments.intentIdOf(clientSecret),
        meta,
        'payment.authenticate',
      );
      const intent = await payments.authenticate(clientSecret, approve);
      if (!intent) throw new AppError('NOT_FOUND', PAYMENT_NOT_FOUND);
      return settle(actor, payment, intent, meta, 'payment.authenticate');
    },

    /** POST /api/payments/complete: the browser's confirmation (Stripe.js) says it succeeded; the processor decides. */
    async completePayment(actor: Actor, intentId: string, meta: RequestMeta): Promise<PaymentResult> {
      const payment = await requireOwnPayment(actor, intentId, meta, 'payment.complete');
      const intent = await payments.retrieveIntent(payment.intentId);
      if (!intent) throw new AppError('NOT_FOUND', PAYMENT_NOT_FOUND);
      return settle(actor, payment, intent, meta, 'payment.complete');
    },

    /**
     * POST /api/purchases as the specification's client sends it after paying: accepted only for
     * the caller's succeeded payment of that service and provider, and answers the one purchase
     * that payment made (so sending it twice creates nothing more).
     */
    async recordPurchase(actor: Actor, body: CreatePurchaseBody, meta: RequestMeta): Promise<Purchase> {
      const payment = await requireOwnPayment(actor, body.paymentIntentId, meta, 'purchase.create');
      const refuse = async (reason: string, message: string) => {
        await audit(
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
      const intent = await payments.retrieveIntent(payment.intentId);
      if (!intent || intent.status !== 'succeeded') {
        await audit(
          actor,
          'purchase.create',
          { type: 'payment', id: payment.id },
          meta,
          { reason: 'not_paid' },
          'denied',
        );
        throw new AppError('CONFLICT', 'This payment has not succeeded.');
      }
      return (await fulfil(payment, intent, actor, meta))!;
    },

    /** POST /api/payments/webhook (Stripe): a signed event; a replayed one changes nothing. */
    async handleWebhook(rawBody: Buffer, signature: string, meta: RequestMeta): Promise<void> {
      if (!payments.verifyWebhook) throw new AppError('NOT_FOUND', 'Not found');
      let event;
      try {
        event = payments.verifyWebhook(rawBody, signature);
      } catch {
        await audit(
          null,
          'payment.webhook',
          { type: 'payment', id: null },
          meta,
          { reason: 'bad_signature' },
          'denied',
        );
        throw new AppError('BAD_REQUEST', 'The webhook signature does not verify.');
      }
      const intent = event.intent;
      const payment = intent ? await repo.findPayment(payments.kind, intent.id) : undefined;
      await audit(null, 'payment.webhook', { type: 'payment', id: payment?.id ?? null }, meta, {
        eventId: event.id,
        type: event.type,
        intentId: intent?.id ?? null,
      });
      if (!intent || !payment) return;
      if (event.type === 'payment_intent.succeeded') {
        // The event's copy may lack the card; the processor's current one has it.
        const current = (await payments.retrieveIntent(intent.id)) ?? intent;
        try {
          await fulfil(payment, current, null, meta);
        } catch (err) {
          // An extra payment for an order paid otherwise was refunded (fulfil audited it); the
          // processor is told the event was received, so it does not send it again.
          if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
        }
      } else if (event.type === 'payment_intent.payment_failed' || event.type === 'payment_intent.canceled') {
        await repo.updatePaymentStatus(payment.id, { status: intent.status, updatedAt: deps.now() });
      }
    },
  };
}
export type OrdersService = ReturnType<typeof createOrdersService>;
