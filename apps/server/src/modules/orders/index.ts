// modules/orders: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { awaitsAutomatedPart, mayActOnOrder, type OrderParty } from './order-access';
export { createOrderEvents, type OrderEventsEmitter } from './order-events';
export { createOrdersRepository } from './orders.repository';
export { ordersRoutes } from './orders.routes';
export { createOrdersService, type OrdersService } from './orders.service';
export { paymentsRoutes } from './payments.routes';
export { paymentsWebhookRoutes } from './payment-webhooks.routes';
export { createOrdersModule } from './orders.module';
