import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sandboxPaymentIntents, sandboxRefunds } from '../../db/schema/index';

export type SandboxIntentRow = typeof sandboxPaymentIntents.$inferSelect;
export type SandboxRefundRow = typeof sandboxRefunds.$inferSelect;

/** A refund asked for more than what is left to refund, or of a payment that did not succeed. */
export class SandboxRefundRefused extends Error {}

/** The sandbox processor's own records. */
export function createSandboxIntentsRepository(db: Db) {
  return {
    async insert(row: typeof sandboxPaymentIntents.$inferInsert): Promise<SandboxIntentRow> {
      const [created] = await db.insert(sandboxPaymentIntents).values(row).onConflictDoNothing().returning();
      if (created) return created;
      // The same idempotency key again: the intent made the first time.
      const [existing] = await db
        .select()
        .from(sandboxPaymentIntents)
        .where(eq(sandboxPaymentIntents.id, row.id));
      return existing!;
    },

    async find(id: string): Promise<SandboxIntentRow | undefined> {
      const [row] = await db.select().from(sandboxPaymentIntents).where(eq(sandboxPaymentIntents.id, id));
      return row;
    },

    /** Moves the intent only from one of `from` (so two confirmations cannot both charge). */
    async transition(
      id: string,
      from: string[],
      values: Partial<typeof sandboxPaymentIntents.$inferInsert>,
    ): Promise<SandboxIntentRow | undefined> {
      const [row] = await db
        .update(sandboxPaymentIntents)
        .set(values)
        .where(and(eq(sandboxPaymentIntents.id, id), inArray(sandboxPaymentIntents.status, from)))
        .returning();
      return row;
    },

    /**
     * Records a refund once per id, in one transaction with the intent's refunded total, which
     * never exceeds what was paid.
     */
    async refund(
      id: string,
      intentId: string,
      amountCents: number | undefined,
      at: Date,
    ): Promise<SandboxRefundRow> {
      return db.transaction(async (tx) => {
        const [intent] = await tx
          .select()
          .from(sandboxPaymentIntents)
          .where(eq(sandboxPaymentIntents.id, intentId))
          .for('update');
        // Looked up under the intent's lock: a concurrent refund with this id has committed by now.
        const [done] = await tx.select().from(sandboxRefunds).where(eq(sandboxRefunds.id, id));
        if (done) return done;
        if (!intent || intent.status !== 'succeeded') throw new SandboxRefundRefused('not_succeeded');
        const amount = amountCents ?? intent.amountCents - intent.amountRefundedCents;
        if (amount <= 0 || intent.amountRefundedCents + amount > intent.amountCents)
          throw new SandboxRefundRefused('amount_too_large');
        await tx
          .update(sandboxPaymentIntents)
          .set({
            amountRefundedCents: sql`${sandboxPaymentIntents.amountRefundedCents} + ${amount}`,
            updatedAt: at,
          })
          .where(eq(sandboxPaymentIntents.id, intentId));
        const [row] = await tx
          .insert(sandboxRefunds)
          .values({ id, intentId, amountCents: amount, createdAt: at })
          .returning();
        return row!;
      });
    },
  };
}
export type SandboxIntentsRepository = ReturnType<typeof createSandboxIntentsRepository>;
