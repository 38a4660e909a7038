import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import type { PaymentsPort } from '../../ports/payments/payments';
import { actorAudit, type AuditRecorder } from '../audit';
import type { OrdersRepository } from './orders.repository';
import type { PaymentFulfilment } from './payment-fulfilment';

export interface PaymentWebhooksDeps {
  repo: Pick<OrdersRepository, 'findPayment' | 'updatePaymentStatus'>;
  payments: Pick<PaymentsPort, 'kind' | 'verifyWebhook' | 'retrieveIntent'>;
  fulfilment: PaymentFulfilment;
  audit: AuditRecorder;
  now: () => Date;
}

/** The processor's own word on a payment (Stripe's signed events), next to the browser's. */
export function createPaymentWebhooksService(deps: PaymentWebhooksDeps) {
  const { repo, payments } = deps;
  const audit = actorAudit(deps.audit);

  /** The event, if its signature verifies; else audited as denied and refused. */
  async function verify(rawBody: Buffer, signature: string, meta: RequestMeta) {
    try {
      return payments.verifyWebhook!(rawBody, signature);
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
  }

  return {
    /** POST /api/payments/webhook (Stripe): a signed event; a replayed one changes nothing. */
    async handleWebhook(rawBody: Buffer, signature: string, meta: RequestMeta): Promise<void> {
      if (!payments.verifyWebhook) throw new AppError('NOT_FOUND', 'Not found');
      const event = await verify(rawBody, signature, meta);
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
          await deps.fulfilment.fulfil(payment, current, null, meta);
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
export type PaymentWebhooksService = ReturnType<typeof createPaymentWebhooksService>;
