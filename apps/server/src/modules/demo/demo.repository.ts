import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orders, providers } from '../../db/schema/index';

/** What the demo readers need to know of an order: its status, and its demo provider's reader. */
export function createDemoRepository(db: Db) {
  return {
    /** The order, when its provider is a demo entry; undefined for every other order. */
    async findDemoOrder(orderId: string): Promise<{ status: string; readerId: string | null } | undefined> {
      const [row] = await db
        .select({ status: orders.status, readerId: providers.linkedUserId })
        .from(orders)
        .innerJoin(providers, eq(providers.id, orders.providerId))
        .where(and(eq(orders.id, orderId), eq(providers.demo, true)))
        .limit(1);
      return row;
    },
  };
}
export type DemoRepository = ReturnType<typeof createDemoRepository>;
