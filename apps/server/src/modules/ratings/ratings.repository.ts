import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { providerRatingCount, providerRatingMean } from '../../db/provider-rating';
import { analysisServices, orders, providerRatings, providers, users } from '../../db/schema/index';

export type RatingRow = typeof providerRatings.$inferSelect;

/** Patients' ratings of their completed orders, counted for the orders' providers. */
export function createRatingsRepository(db: Db) {
  return {
    /** The user's own completed order, with its provider, or undefined. */
    /** The order a rating is for (who may rate it: modules/orders, order-access.ts). */
    async findOrder(
      orderId: string,
    ): Promise<{ id: string; providerId: string; userId: string; status: string } | undefined> {
      const [row] = await db
        .select({
          id: orders.id,
          providerId: orders.providerId,
          userId: orders.userId,
          status: orders.status,
        })
        .from(orders)
        .where(eq(orders.id, orderId))
        .limit(1);
      return row;
    },

    async find(orderId: string): Promise<RatingRow | undefined> {
      const [row] = await db
        .select()
        .from(providerRatings)
        .where(eq(providerRatings.orderId, orderId))
        .limit(1);
      return row;
    },

    /** Gives or changes the rating of an order (one per order). A changed comment is shown again. */
    async upsert(values: {
      orderId: string;
      providerId: string;
      userId: string;
      stars: number;
      comment: string | null;
      at: Date;
    }): Promise<RatingRow> {
      const { at, ...rating } = values;
      const [row] = await db
        .insert(providerRatings)
        .values({ ...rating, createdAt: at, updatedAt: at })
        .onConflictDoUpdate({
          target: providerRatings.orderId,
          set: {
            stars: rating.stars,
            comment: rating.comment,
            updatedAt: at,
            commentHiddenAt: sql`case when ${providerRatings.comment} is not distinct from ${rating.comment} then ${providerRatings.commentHiddenAt} else null end`,
          },
        })
        .returning();
      return row!;
    },

    /** A provider's ratings, newest first, with the service each was for; hidden comments left out. */
    async listForProvider(providerId: string, limit: number) {
      return db
        .select({
          stars: providerRatings.stars,
          comment: sql<
            string | null
          >`case when ${providerRatings.commentHiddenAt} is null then ${providerRatings.comment} end`,
          serviceName: analysisServices.name,
          createdAt: providerRatings.createdAt,
        })
        .from(providerRatings)
        .innerJoin(orders, eq(orders.id, providerRatings.orderId))
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .where(eq(providerRatings.providerId, providerId))
        .orderBy(desc(providerRatings.createdAt))
        .limit(limit);
    },

    async summary(providerId: string): Promise<{ mean: number | null; count: number }> {
      const [row] = await db
        .select({ mean: providerRatingMean, count: providerRatingCount })
        .from(providers)
        .where(eq(providers.id, providerId));
      return { mean: row?.mean == null ? null : Number(row.mean), count: Number(row?.count ?? 0) };
    },

    /** Every rating, newest first, for Admin → Ratings. */
    async listAll(filter: { orderId?: string } = {}) {
      return db
        .select({
          rating: providerRatings,
          providerName: providers.name,
          serviceName: analysisServices.name,
          authorEmail: users.email,
        })
        .from(providerRatings)
        .innerJoin(orders, eq(orders.id, providerRatings.orderId))
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .innerJoin(providers, eq(providers.id, providerRatings.providerId))
        .innerJoin(users, eq(users.id, providerRatings.userId))
        .where(filter.orderId ? eq(providerRatings.orderId, filter.orderId) : undefined)
        .orderBy(desc(providerRatings.createdAt))
        .limit(1000);
    },

    async setCommentHidden(orderId: string, hiddenBy: string | null, at: Date | null): Promise<boolean> {
      const rows = await db
        .update(providerRatings)
        .set({ commentHiddenAt: at, commentHiddenBy: hiddenBy })
        .where(eq(providerRatings.orderId, orderId))
        .returning({ orderId: providerRatings.orderId });
      return rows.length > 0;
    },
  };
}
export type RatingsRepository = ReturnType<typeof createRatingsRepository>;
