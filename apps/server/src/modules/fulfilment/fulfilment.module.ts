import { createFulfilmentRepository } from './fulfilment.repository';
import { fulfilmentRoutes } from './fulfilment.routes';
import { createFulfilmentService } from './fulfilment.service';
import { createReportDelivery } from './report-delivery';

type ServiceDeps = Parameters<typeof createFulfilmentService>[0];
type DeliveryDeps = Parameters<typeof createReportDelivery>[0];

export interface FulfilmentModuleDeps extends Pick<
  ServiceDeps,
  'access' | 'notifications' | 'audit' | 'now'
> {
  /** Orders (modules/orders): an order that cannot be delivered is refunded. */
  orders: { refundOrder: ServiceDeps['refundOrder'] };
  db: Parameters<typeof createFulfilmentRepository>[0];
  /** Order events (modules/orders): delivered reports end orders; attached studies start their automated part. */
  events: NonNullable<DeliveryDeps['events']>;
  storage: DeliveryDeps['storage'];
}

/** Professionals' orders, and reports delivered into studies (`reportDelivery.deliverReport`). */
export function createFulfilmentModule({ db, events, orders, ...deps }: FulfilmentModuleDeps) {
  const repo = createFulfilmentRepository(db);
  const { storage, notifications, audit, now } = deps;
  const reportDelivery = createReportDelivery({ repo, storage, notifications, audit, events, now });
  const fulfilment = createFulfilmentService({
    repo,
    delivery: reportDelivery,
    access: deps.access,
    refundOrder: (orderId, reason, options) => orders.refundOrder(orderId, reason, options),
    notifications,
    storage,
    audit,
    now,
    startAutomated: (orderId, status) => events.emit('studyAttached', { orderId, status }),
  });
  return { fulfilment, reportDelivery, routes: () => [fulfilmentRoutes(fulfilment)] };
}
