import type { Logger } from 'pino';
import type { Config } from '../../config';
import type { PaymentsPort } from '../../ports/payments/payments';
import { createSandboxIntentsRepository } from '../../ports/payments/sandbox-intents.repository';
import { createSandboxProcessor } from '../../ports/payments/sandbox-processor';
import { createStripeProcessor } from '../../ports/payments/stripe-processor';
import { createOrderEvents } from './order-events';
import { createOrdersRepository } from './orders.repository';
import { ordersRoutes } from './orders.routes';
import { createOrdersService } from './orders.service';
import { paymentsWebhookRoutes } from './payment-webhooks.routes';
import { paymentsRoutes } from './payments.routes';

type ServiceDeps = Parameters<typeof createOrdersService>[0];

export interface OrdersModuleDeps extends Pick<ServiceDeps, 'access' | 'users' | 'mail' | 'audit' | 'now'> {
  /** The analysis service catalogue (modules/services). */
  analysisServices: ServiceDeps['catalogue'];
  db: Parameters<typeof createOrdersRepository>[0];
  log: Logger;
  config: Pick<Config, 'publicUrl' | 'stripe' | 'sessionSecret'>;
}

/** The card processor: Stripe when STRIPE_* is set, else the embedded sandbox. */
function createPayments({ db, config, now }: OrdersModuleDeps): PaymentsPort {
  if (config.stripe) return createStripeProcessor(config.stripe);
  const repo = createSandboxIntentsRepository(db);
  return createSandboxProcessor({ repo, secret: config.sessionSecret, now });
}

/**
 * Orders of analysis services and the payments that pay them. Orders are paid and ended here;
 * fulfilment delivers them, and analysis and vendors act on them through `events`.
 */
export function createOrdersModule(deps: OrdersModuleDeps) {
  const { db, log, config } = deps;
  const events = createOrderEvents(log);
  const orders = createOrdersService({
    repo: createOrdersRepository(db),
    catalogue: deps.analysisServices,
    access: deps.access,
    payments: createPayments(deps),
    users: deps.users,
    mail: deps.mail,
    audit: deps.audit,
    appUrl: config.publicUrl,
    now: deps.now,
    events,
  });
  return {
    orders,
    events,
    routes: () => [ordersRoutes(orders), paymentsRoutes(orders), paymentsWebhookRoutes(orders)],
  };
}
