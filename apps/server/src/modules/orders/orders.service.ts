import type { PaymentsPort } from '../../ports/payments/payments';
import type { AccessService } from '../access';
import type { UsersRepository } from '../accounts';
import type { AuditRecorder } from '../audit';
import type { MailService } from '../mail';
import type { ServicesService } from '../services';
import { createOrderPlacingService } from './order-placing.service';
import { createOrderPrerequisites } from './order-prerequisites';
import type { OrderEventsEmitter } from './order-events';
import type { OrdersRepository } from './orders.repository';
import { createPaymentFulfilment } from './payment-fulfilment';
import { createPaymentWebhooksService } from './payment-webhooks.service';
import { createPaymentsService } from './payments.service';
import { createRefundsService } from './refunds.service';

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
 * Orders of analysis services and the card payments that pay them, built together from their
 * parts: placing and listing orders (order-placing.service.ts), card payments
 * (payments.service.ts), refunds (refunds.service.ts) and the processor's webhook
 * (payment-webhooks.service.ts). Every amount comes from the catalogue (ServicesService.findOffer)
 * or from the order; a payment becomes an order only once the processor says it succeeded, exactly
 * once (payment-fulfilment.ts), whichever of the browser's confirmation, POST /api/purchases and
 * the processor's webhook arrives first.
 */
export function createOrdersService(deps: OrdersDeps) {
  const { repo, audit, now, events } = deps;
  const prerequisites = createOrderPrerequisites({ catalogue: deps.catalogue, access: deps.access, audit });
  const refunds = createRefundsService({
    repo,
    payments: deps.payments,
    users: deps.users,
    mail: deps.mail,
    audit,
    appUrl: deps.appUrl,
    now,
    events,
  });
  const fulfilment = createPaymentFulfilment({
    repo,
    catalogue: deps.catalogue,
    refunds,
    users: deps.users,
    mail: deps.mail,
    audit,
    appUrl: deps.appUrl,
    now,
    events,
  });
  const placing = createOrderPlacingService({ repo, prerequisites, audit, now, events });
  const payments = createPaymentsService({
    repo,
    payments: deps.payments,
    prerequisites,
    fulfilment,
    audit,
    now,
  });
  const webhooks = createPaymentWebhooksService({ repo, payments: deps.payments, fulfilment, audit, now });
  return {
    ...placing,
    ...payments,
    refundOrder: refunds.refundOrder,
    ...webhooks,
  };
}
export type OrdersService = ReturnType<typeof createOrdersService>;
