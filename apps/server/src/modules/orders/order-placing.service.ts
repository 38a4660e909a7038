import type { CreateOrderBody, Purchase } from '@mi/contracts/orders';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import { actorAudit, type AuditRecorder } from '../audit';
import { mayActOnOrder } from './order-access';
import type { OrderEventsEmitter } from './order-events';
import type { OrderPrerequisites } from './order-prerequisites';
import type { OrdersRepository } from './orders.repository';
import {
  ORDER_NOT_FOUND,
  PURCHASES_NOT_FOUND,
  UUID,
  purchaseReader,
  toPurchase,
  type Actor,
} from './purchase-view';

export interface OrderPlacingDeps {
  repo: Pick<OrdersRepository, 'findView' | 'listForUser' | 'insertOrder' | 'findOrder' | 'cancelAwaiting'>;
  prerequisites: OrderPrerequisites;
  audit: AuditRecorder;
  now: () => Date;
  /** `ended` when an order is cancelled (vendor credentials end). */
  events?: OrderEventsEmitter;
}

/** A buyer's orders: placing one that waits for payment, listing them, cancelling an unpaid one. */
export function createOrderPlacingService(deps: OrderPlacingDeps) {
  const { repo, prerequisites } = deps;
  const audit = actorAudit(deps.audit);
  const view = purchaseReader(repo);

  return {
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
      const offer = await prerequisites.requireOffer(
        actor,
        body.serviceId,
        body.providerId,
        meta,
        'order.create',
      );
      const study = await prerequisites.requireOwnStudy(actor, body.studyId, meta, 'order.create');
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
  };
}
export type OrderPlacingService = ReturnType<typeof createOrderPlacingService>;
