import { lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rateLimitWindows, spentCaptchaChallenges } from '../../db/schema/index';

/** Old rows are swept now and then by whoever writes, instead of by a job. */
const SWEEP_EVERY = 500;

/**
 * Spent captcha challenges in the database: a challenge is accepted once across every API
 * process (ports/captcha/altcha-verifier.ts).
 */
export function createSpentChallenges(db: Db) {
  let sinceSweep = 0;
  return {
    /** Records the challenge as spent; false when it already was. */
    async spend(challengeId: string, expiresAt: Date): Promise<boolean> {
      if (++sinceSweep >= SWEEP_EVERY) {
        sinceSweep = 0;
        await db.delete(spentCaptchaChallenges).where(lt(spentCaptchaChallenges.expiresAt, new Date()));
      }
      const inserted = await db
        .insert(spentCaptchaChallenges)
        .values({ challengeId, expiresAt })
        .onConflictDoNothing()
        .returning({ challengeId: spentCaptchaChallenges.challengeId });
      return inserted.length === 1;
    },
  };
}

/**
 * Fixed-window request counters in the database, one row per key, incremented atomically: the
 * per-address route limits count the requests of every API process (http/rate-limit-store.ts).
 */
export function createRequestWindows(db: Db) {
  let sinceSweep = 0;
  return {
    /** Counts one request for `key`; answers the count in the current window and the ms it has left. */
    async hit(key: string, windowMs: number): Promise<{ hits: number; msLeft: number }> {
      if (++sinceSweep >= SWEEP_EVERY) {
        sinceSweep = 0;
        await db
          .delete(rateLimitWindows)
          .where(lt(rateLimitWindows.windowStartedAt, sql`now() - interval '1 day'`));
      }
      const window = sql`(${windowMs}::double precision * interval '1 millisecond')`;
      const expired = sql`${rateLimitWindows.windowStartedAt} + ${window} <= now()`;
      const [row] = await db
        .insert(rateLimitWindows)
        .values({ key, windowStartedAt: sql`now()`, hits: 1 })
        .onConflictDoUpdate({
          target: rateLimitWindows.key,
          set: {
            hits: sql`case when ${expired} then 1 else ${rateLimitWindows.hits} + 1 end`,
            windowStartedAt: sql`case when ${expired} then now() else ${rateLimitWindows.windowStartedAt} end`,
          },
        })
        .returning({
          hits: rateLimitWindows.hits,
          msLeft: sql<number>`greatest(0, extract(epoch from (${rateLimitWindows.windowStartedAt} + ${window} - now())) * 1000)`,
        });
      return { hits: row!.hits, msLeft: Math.ceil(Number(row!.msLeft)) };
    },
  };
}

export type SpentChallenges = ReturnType<typeof createSpentChallenges>;
export type RequestWindows = ReturnType<typeof createRequestWindows>;
