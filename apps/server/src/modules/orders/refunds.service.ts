import { formatDollars, type Purchase } from '@mi/contracts/orders';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { PaymentsPort } from '../../ports/payments/payments';
import type { UsersRepository } from '../accounts';
import { actorAudit, type AuditRecorder } from '../audit';
import { refundReceiptEmail, type MailService } from '../mail';
import type { OrderEventsEmitter } from './order-events';
import { REFUNDABLE_STATUSES, type OrdersRepository, type PaymentRow } from './orders.repository';
import { ORDER_NOT_FOUND, UUID, purchaseReader, type OrderActor } from './purchase-view';

export interface RefundsDeps {
  repo: Pick<OrdersRepository, 'findOrder' | 'findPaymentById' | 'recordRefund' | 'serviceName' | 'findView'>;
  payments: Pick<PaymentsPort, 'refund'>;
  users: Pick<UsersRepository, 'findById'>;
  mail: Pick<MailService, 'send'>;
  audit: AuditRecorder;
  appUrl: string;
  now: () => Date;
  /** `ended` when an order is refunded (vendor credentials end). */
  events?: OrderEventsEmitter;
}

/** The processor's refund of what is left of the payment, once per payment; a failure is audited. */
async function askProcessor(
  deps: RefundsDeps,
  payment: PaymentRow,
  audited: { action: string; target: { type: string; id: string }; reason: string },
  actor: OrderActor,
  meta: RequestMeta | undefined,
) {
  try {
    return payment.refundId
      ? { id: payment.refundId, amountCents: 0 }
      : await deps.payments.refund(payment.intentId, payment.amountCents - payment.refundedCents, {
          idempotencyKey: `refund-${payment.id}`,
        });
  } catch (err) {
    await actorAudit(deps.audit)(
      actor,
      audited.action,
      audited.target,
      meta,
      { paymentId: payment.id, reason: audited.reason, error: (err as Error).name },
      'failure',
    );
    throw new AppError('CONFLICT', 'The refund could not be made. Please try again later.');
  }
}

/** The refund receipt, to the payer. */
async function sendReceipt(
  deps: RefundsDeps,
  payment: PaymentRow,
  reference: string,
  reason: string,
  at: Date,
) {
  const [user, serviceName] = await Promise.all([
    deps.users.findById(payment.userId),
    deps.repo.serviceName(payment.serviceId),
  ]);
  if (!user) return;
  await deps.mail.send(
    user.email,
    refundReceiptEmail({
      serviceName: serviceName ?? 'Analysis service',
      amount: formatDollars((payment.amountCents - payment.refundedCents) / 100),
      card:
        payment.cardBrand && payment.cardLast4
          ? `${payment.cardBrand} ending in ${payment.cardLast4}`
          : 'card',
      reference,
      reason,
      date: at.toUTCString(),
      link: new URL('/services/purchased', deps.appUrl).toString(),
    }),
  );
}

/** Refunds: a paid order given back in full, and a payment that paid nothing (it came too late). */
export function createRefundsService(deps: RefundsDeps) {
  const { repo } = deps;
  const audit = actorAudit(deps.audit);
  const view = purchaseReader(repo);

  /**
   * Refunds what is left of a succeeded payment through the processor (one idempotency key per
   * payment, so asking twice refunds once) and records it: on the payment, and for `order` its
   * move to `refunded`. Audit and receipt only for the call that did it.
   */
  async function refundPayment(
    payment: PaymentRow,
    order: { id: string } | null,
    reason: string,
    actor: OrderActor,
    meta: RequestMeta | undefined,
  ): Promise<boolean> {
    const target = order ? { type: 'order', id: order.id } : { type: 'payment', id: payment.id };
    const action = order ? 'order.refund' : 'payment.refund';
    const refund = await askProcessor(deps, payment, { action, target, reason }, actor, meta);
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
    await sendReceipt(deps, payment, order?.id ?? payment.id, reason, at);
    return true;
  }

  return {
    refundPayment,

    /**
     * Refunds a paid order in full and moves it to `refunded` (a professional declined it, it was
     * not accepted in time, an admin refunded it). Idempotent: a refunded order is answered as it
     * is, and concurrent calls refund once; `refundedNow` tells the one call that did it, so only
     * that caller tells the patient. `actor` is who did it (null for the server's jobs).
     */
    async refundOrder(
      orderId: string,
      reason: string,
      options: { actor?: OrderActor; meta?: RequestMeta } = {},
    ): Promise<{ purchase: Purchase; refundedNow: boolean }> {
      const order = UUID.test(orderId) ? await repo.findOrder(orderId) : undefined;
      if (!order) throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
      if (order.status === 'refunded') return { purchase: await view(order.id), refundedNow: false };
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
      const refundedNow = await refundPayment(payment, order, reason, options.actor ?? null, options.meta);
      return { purchase: await view(order.id), refundedNow };
    },
  };
}
export type RefundsService = ReturnType<typeof createRefundsService>;
