import { and, count, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { authThrottleHits } from '../../db/schema/index';

/**
 * Sliding-window counters kept in the database, so limits hold across API processes and
 * restarts. Keys look like `login:account:<email>` or `login:ip:<ip>`.
 */
export function createThrottle(db: Db, now: () => Date) {
  let sinceCleanup = 0;
  return {
    async hit(key: string): Promise<void> {
      const at = now();
      await db.insert(authThrottleHits).values({ key, at });
      // Old hits are useless; sweep now and then instead of with a job.
      if (++sinceCleanup >= 200) {
        sinceCleanup = 0;
        await db
          .delete(authThrottleHits)
          .where(lt(authThrottleHits.at, new Date(at.getTime() - 24 * 3_600_000)));
      }
    },
    async count(key: string, windowMs: number): Promise<number> {
      const since = new Date(now().getTime() - windowMs);
      const [row] = await db
        .select({ n: count() })
        .from(authThrottleHits)
        .where(and(eq(authThrottleHits.key, key), gt(authThrottleHits.at, since)));
      return row?.n ?? 0;
    },
    async clear(key: string): Promise<void> {
      await db.delete(authThrottleHits).where(eq(authThrottleHits.key, key));
    },
  };
}
export type Throttle = ReturnType<typeof createThrottle>;
