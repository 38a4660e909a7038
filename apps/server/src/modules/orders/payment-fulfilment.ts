import { formatDollars, missingStudyData, type Purchase } from '@mi/contracts/orders';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { PaymentIntent } from '../../ports/payments/payments';
import type { UsersRepository } from '../accounts';
import { actorAudit, type AuditRecorder } from '../audit';
import { paymentReceiptEmail, type MailService } from '../mail';
import type { ServicesService } from '../services';
import type { OrderEventsEmitter } from './order-events';
import type { OrderStatusValue, OrdersRepository, PaymentRow } from './orders.repository';
import { purchaseReader, type OrderActor } from './purchase-view';
import type { RefundsService } from './refunds.service';

export interface PaymentFulfilmentDeps {
  repo: Pick<OrdersRepository, 'studyFacts' | 'recordPaid' | 'findView'>;
  catalogue: Pick<ServicesService, 'findOffer'>;
  refunds: Pick<RefundsService, 'refundPayment'>;
  users: Pick<UsersRepository, 'findById'>;
  mail: Pick<MailService, 'send'>;
  audit: AuditRecorder;
  appUrl: string;
  now: () => Date;
  /** `paid` once per order: the automated analysis queues its job there. */
  events?: OrderEventsEmitter;
}

/** Where a paid order starts: data missing, a professional's approval, or straight to work. */
async function initialStatus(deps: PaymentFulfilmentDeps, payment: PaymentRow): Promise<OrderStatusValue> {
  const offer = await deps.catalogue.findOffer(payment.serviceId, payment.providerId);
  const facts = payment.studyId ? await deps.repo.studyFacts(payment.studyId) : undefined;
  if (missingStudyData(offer?.service.supportedModalities ?? [], facts)) return 'pending_data_upload';
  return offer?.service.type === 'AI' ? 'in_progress' : 'pending_approval';
}

/** The payment receipt, to the payer. */
async function sendReceipt(
  deps: PaymentFulfilmentDeps,
  payment: PaymentRow,
  purchase: Purchase,
  orderId: string,
  at: Date,
) {
  const user = await deps.users.findById(payment.userId);
  if (!user) return;
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
}

/** The first call for a paid order: audit, receipt, and the `paid` event. */
async function announcePaid(
  deps: PaymentFulfilmentDeps,
  payment: PaymentRow,
  purchase: Purchase,
  orderId: string,
  at: Date,
  actor: OrderActor,
  meta: RequestMeta | undefined,
) {
  await actorAudit(deps.audit)(actor, 'order.paid', { type: 'order', id: orderId }, meta, {
    paymentId: payment.id,
    processor: payment.processor,
    amountCents: payment.amountCents,
    status: purchase.orderStatus,
    card: purchase.card,
  });
  await sendReceipt(deps, payment, purchase, orderId, at);
  // The payment stands whatever happens here (the hub logs a listener's failure);
  // analysis-sweep queues what this missed.
  await deps.events?.emit('paid', { orderId, status: purchase.orderStatus });
}

/**
 * A payment the processor reports succeeded becomes (or pays) its order, exactly once
 * (OrdersRepository.recordPaid), whichever of the browser's confirmation, POST /api/purchases and
 * the processor's webhook arrives first.
 */
export function createPaymentFulfilment(deps: PaymentFulfilmentDeps) {
  const { repo } = deps;
  const audit = actorAudit(deps.audit);
  const view = purchaseReader(repo);

  /**
   * A payment the processor reports succeeded becomes (or pays) its order, once. The amount and
   * currency must be the ones the payment was made for; the receipt goes out on the first call.
   */
  async function fulfil(
    payment: PaymentRow,
    intent: PaymentIntent,
    actor: OrderActor,
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
      status: await initialStatus(deps, payment),
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
      await deps.refunds.refundPayment(
        payment,
        null,
        'This order was already paid or cancelled.',
        actor,
        meta,
      );
      throw new AppError('CONFLICT', 'This order was already paid or cancelled. Your payment was refunded.');
    }
    const purchase = await view(orderId);
    if (created) await announcePaid(deps, payment, purchase, orderId, at, actor, meta);
    return purchase;
  }

  return { fulfil };
}
export type PaymentFulfilment = ReturnType<typeof createPaymentFulfilment>;
