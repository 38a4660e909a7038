import type { Purchase } from '@mi/contracts/orders';
import { RATING_EDIT_DAYS } from '@mi/contracts/directory';
import { AppError } from '../../http/app-error';
import type { OrderView, OrdersRepository } from './orders.repository';

export const PURCHASES_NOT_FOUND = 'No purchases found for this user';
export const PAYMENT_NOT_FOUND = 'Payment not found.';
export const ORDER_NOT_FOUND = 'Order not found.';
export const SERVICE_NOT_FOUND = 'This service is not offered by this provider.';
export const AMOUNT_MISMATCH = 'The amount does not match the price of this service.';
export const CURRENCY = 'usd';

/** An order id as the routes receive it: anything else names no order. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The user the caller acts as. */
export interface Actor {
  id: string;
  role: string | null;
  email: string;
}

/** Who did something to an order or payment: a user, or null for the server's jobs and webhooks. */
export type OrderActor = { id: string; role: string | null } | null;

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

/** An order as Purchased Services shows it, or the one 404. */
export function purchaseReader(repo: Pick<OrdersRepository, 'findView'>) {
  return async function view(orderId: string): Promise<Purchase> {
    const found = await repo.findView(orderId);
    if (!found) throw new AppError('NOT_FOUND', ORDER_NOT_FOUND);
    return toPurchase(found);
  };
}
