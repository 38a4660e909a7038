import { and, desc, eq, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  analysisServices,
  orderFulfilments,
  orders,
  payments,
  providerRatings,
  providers,
  studies,
} from '../../db/schema/index';

export type OrderRow = typeof orders.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;
export type OrderStatusValue = OrderRow['status'];

/** A paid order in one of these can be refunded (OrdersService.refundOrder). */
export const REFUNDABLE_STATUSES: OrderStatusValue[] = [
  'pending_approval',
  'pending_data_upload',
  'in_progress',
  'declined',
  'completed',
];

/** An order with what the lists show of it. */
export interface OrderView {
  order: OrderRow;
  service: { id: string; name: string; scope: string; type: 'AI' | 'Expert' | 'Combined' };
  provider: { id: string; name: string; demo: boolean };
  /** The buyer's rating of the order (modules/ratings), when given. */
  rating: { stars: number; comment: string | null; createdAt: Date } | null;
  payment: {
    intentId: string;
    cardBrand: string | null;
    cardLast4: string | null;
    /** What was given back of this payment (0 when nothing), and when. */
    refundedCents: number;
    refundedAt: Date | null;
  } | null;
  /** When the automated part of a Complete Analysis Package was delivered into the study. */
  automatedReportAt: Date | null;
}

/** Orders as their lists show them: with service, provider, rating, payment and automated part. */
const views = (db: Db) =>
  db
    .select({
      order: orders,
      service: {
        id: analysisServices.id,
        name: analysisServices.name,
        scope: analysisServices.scope,
        type: analysisServices.type,
      },
      provider: { id: providers.id, name: providers.name, demo: providers.demo },
      rating: {
        stars: providerRatings.stars,
        comment: providerRatings.comment,
        createdAt: providerRatings.createdAt,
      },
      payment: {
        intentId: payments.intentId,
        cardBrand: payments.cardBrand,
        cardLast4: payments.cardLast4,
        refundedCents: payments.refundedCents,
        refundedAt: payments.refundedAt,
      },
      automatedReportAt: orderFulfilments.automatedReportAt,
    })
    .from(orders)
    .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
    .innerJoin(providers, eq(providers.id, orders.providerId))
    .leftJoin(payments, eq(payments.id, orders.paymentId))
    .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
    .leftJoin(providerRatings, eq(providerRatings.orderId, orders.id));

const toView = (r: {
  order: OrderRow;
  service: OrderView['service'];
  provider: OrderView['provider'];
  rating: { stars: number | null; comment: string | null; createdAt: Date | null } | null;
  payment: {
    intentId: string | null;
    cardBrand: string | null;
    cardLast4: string | null;
    refundedCents: number | null;
    refundedAt: Date | null;
  } | null;
  automatedReportAt: Date | null;
}): OrderView => ({
  ...r,
  rating:
    r.rating?.stars != null && r.rating.createdAt
      ? { stars: r.rating.stars, comment: r.rating.comment, createdAt: r.rating.createdAt }
      : null,
  payment: r.payment?.intentId
    ? {
        intentId: r.payment.intentId,
        cardBrand: r.payment.cardBrand,
        cardLast4: r.payment.cardLast4,
        refundedCents: r.payment.refundedCents ?? 0,
        refundedAt: r.payment.refundedAt,
      }
    : null,
});

/** Orders: made, listed, found and cancelled. */
function createOrderRowsRepository(db: Db) {
  async function findView(orderId: string): Promise<OrderView | undefined> {
    const [row] = await views(db).where(eq(orders.id, orderId)).limit(1);
    return row && toView(row);
  }

  return {
    findView,

    /** What a study holds, for where a paid order starts (its data may not suit the service). */
    async studyFacts(studyId: string): Promise<{ modalities: string[]; instanceCount: number } | undefined> {
      const [row] = await db
        .select({ modalities: studies.modalities, instanceCount: studies.instanceCount })
        .from(studies)
        .where(eq(studies.id, studyId))
        .limit(1);
      return row;
    },

    async listForUser(userId: string): Promise<OrderView[]> {
      const rows = await views(db)
        .where(eq(orders.userId, userId))
        .orderBy(desc(orders.createdAt), orders.id);
      return rows.map(toView);
    },

    async insertOrder(values: typeof orders.$inferInsert): Promise<OrderRow> {
      const [row] = await db.insert(orders).values(values).returning();
      return row!;
    },

    /** Cancels an unpaid order; true when it was still unpaid. */
    async cancelAwaiting(orderId: string, userId: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(orders)
        .set({ status: 'cancelled', updatedAt: at })
        .where(and(eq(orders.id, orderId), eq(orders.userId, userId), eq(orders.status, 'awaiting_payment')))
        .returning({ id: orders.id });
      return rows.length > 0;
    },

    /** A service's name, retired or not (receipts name what was bought). */
    async serviceName(serviceId: string): Promise<string | undefined> {
      const [row] = await db
        .select({ name: analysisServices.name })
        .from(analysisServices)
        .where(eq(analysisServices.id, serviceId))
        .limit(1);
      return row?.name;
    },

    /** An order by id (who may act on it is order-access.ts's to say). */
    async findOrder(orderId: string): Promise<OrderRow | undefined> {
      const [row] = await db.select().from(orders).where(eq(orders.id, orderId)).limit(1);
      return row;
    },
  };
}

/** An order's payments: found, and recorded as the processor reports them. */
function createPaymentsRepository(db: Db) {
  return {
    async findPaymentById(id: string): Promise<PaymentRow | undefined> {
      const [row] = await db.select().from(payments).where(eq(payments.id, id)).limit(1);
      return row;
    },

    /** The order's payment still open for paying (one per order, so one order is paid once). */
    async findOpenOrderPayment(
      orderId: string,
      processor: 'sandbox' | 'stripe',
    ): Promise<PaymentRow | undefined> {
      const [row] = await db
        .select()
        .from(payments)
        .where(
          and(
            eq(payments.orderId, orderId),
            eq(payments.processor, processor),
            notInArray(payments.status, ['canceled', 'succeeded']),
          ),
        )
        .orderBy(desc(payments.createdAt))
        .limit(1);
      return row;
    },

    /** How many of the order's payments are over (canceled or succeeded); the others are open. */
    async countFinishedOrderPayments(orderId: string): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(payments)
        .where(and(eq(payments.orderId, orderId), inArray(payments.status, ['canceled', 'succeeded'])));
      return row?.n ?? 0;
    },

    /** Inserts a payment, or answers the one already recorded for the same processor intent. */
    async insertOrFindPayment(values: typeof payments.$inferInsert): Promise<PaymentRow> {
      const [row] = await db.insert(payments).values(values).onConflictDoNothing().returning();
      if (row) return row;
      const [existing] = await db
        .select()
        .from(payments)
        .where(and(eq(payments.processor, values.processor), eq(payments.intentId, values.intentId)))
        .limit(1);
      return existing!;
    },

    async insertPayment(values: typeof payments.$inferInsert): Promise<PaymentRow> {
      const [row] = await db.insert(payments).values(values).returning();
      return row!;
    },

    async findPayment(processor: 'sandbox' | 'stripe', intentId: string): Promise<PaymentRow | undefined> {
      const [row] = await db
        .select()
        .from(payments)
        .where(and(eq(payments.processor, processor), eq(payments.intentId, intentId)))
        .limit(1);
      return row;
    },

    /** Records what the processor said, unless the payment already succeeded (that is final). */
    async updatePaymentStatus(
      id: string,
      values: { status: string; cardBrand?: string | null; cardLast4?: string | null; updatedAt: Date },
    ): Promise<void> {
      await db
        .update(payments)
        .set(values)
        .where(and(eq(payments.id, id), sql`${payments.status} <> 'succeeded'`));
    },
  };
}

/** A payment's outcomes that change its order too: paid, refunded. */
function createPaymentOutcomesRepository(db: Db) {
  return {
    /**
     * Records a refund the processor made: on the payment (once per refund id) and, for an order,
     * its move to `refunded`. `refunded` is true only for the call that moved the order (or, for
     * a payment without order, recorded the refund), so receipt and audit happen once.
     */
    async recordRefund(
      paymentId: string,
      orderId: string | null,
      values: { refundId: string; amountCents: number; reason: string; at: Date },
    ): Promise<{ refunded: boolean }> {
      return db.transaction(async (tx) => {
        const paid = await tx
          .update(payments)
          .set({
            refundId: values.refundId,
            refundedCents: sql`${payments.refundedCents} + ${values.amountCents}`,
            refundedAt: values.at,
            updatedAt: values.at,
          })
          .where(
            and(eq(payments.id, paymentId), sql`${payments.refundId} is distinct from ${values.refundId}`),
          )
          .returning({ id: payments.id });
        if (!orderId) return { refunded: paid.length > 0 };
        const moved = await tx
          .update(orders)
          .set({
            status: 'refunded',
            refundReason: values.reason,
            refundedAt: values.at,
            updatedAt: values.at,
          })
          .where(and(eq(orders.id, orderId), inArray(orders.status, REFUNDABLE_STATUSES)))
          .returning({ id: orders.id });
        return { refunded: moved.length > 0 };
      });
    },

    /**
     * The one place a succeeded payment becomes an order, in one transaction: a new purchase is
     * inserted (unique per payment), an order waiting for payment is moved out of
     * `awaiting_payment`. `created` is true only for the call that did it, so the receipt and the
     * audit happen once however many confirmations and webhooks arrive.
     */
    async recordPaid(
      payment: PaymentRow,
      values: {
        status: OrderStatusValue;
        at: Date;
        cardBrand: string | null;
        cardLast4: string | null;
      },
    ): Promise<{ orderId: string | undefined; created: boolean }> {
      return db.transaction(async (tx) => {
        await tx
          .update(payments)
          .set({
            status: 'succeeded',
            succeededAt: sql`coalesce(${payments.succeededAt}, ${values.at.toISOString()}::timestamptz)`,
            cardBrand: sql`coalesce(${payments.cardBrand}, ${values.cardBrand})`,
            cardLast4: sql`coalesce(${payments.cardLast4}, ${values.cardLast4})`,
            updatedAt: values.at,
          })
          .where(eq(payments.id, payment.id));
        if (payment.orderId) {
          const moved = await tx
            .update(orders)
            .set({ status: values.status, paymentId: payment.id, paidAt: values.at, updatedAt: values.at })
            .where(
              and(
                eq(orders.id, payment.orderId),
                eq(orders.status, 'awaiting_payment'),
                isNull(orders.paymentId),
              ),
            )
            .returning({ id: orders.id });
          if (moved[0]) return { orderId: moved[0].id, created: true };
        } else {
          const inserted = await tx
            .insert(orders)
            .values({
              userId: payment.userId,
              serviceId: payment.serviceId,
              providerId: payment.providerId,
              studyId: payment.studyId,
              costCents: payment.amountCents,
              status: values.status,
              paymentId: payment.id,
              paidAt: values.at,
              createdAt: values.at,
              updatedAt: values.at,
            })
            .onConflictDoNothing({ target: orders.paymentId })
            .returning({ id: orders.id });
          if (inserted[0]) return { orderId: inserted[0].id, created: true };
        }
        const [existing] = await tx
          .select({ id: orders.id })
          .from(orders)
          .where(eq(orders.paymentId, payment.id))
          .limit(1);
        return { orderId: existing?.id, created: false };
      });
    },
  };
}

/** Orders (purchases) and the card payments that pay them. */
export function createOrdersRepository(db: Db) {
  return {
    ...createOrderRowsRepository(db),
    ...createPaymentsRepository(db),
    ...createPaymentOutcomesRepository(db),
  };
}
export type OrdersRepository = ReturnType<typeof createOrdersRepository>;
