import { and, desc, eq, isNull, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sessions, users } from '../../db/schema/index';

export type SessionRow = typeof sessions.$inferSelect;

/** Server-side session records, found by the hash of the token the client presents. */
export function createSessionsRepository(db: Db) {
  return {
    async insert(values: typeof sessions.$inferInsert): Promise<SessionRow> {
      const [row] = await db.insert(sessions).values(values).returning();
      if (!row) throw new Error('session insert returned nothing');
      return row;
    },
    async findActiveByAuthHash(authTokenHash: string) {
      const [row] = await db
        .select({ session: sessions, user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.authTokenHash, authTokenHash), isNull(sessions.revokedAt)))
        .limit(1);
      return row;
    },
    async findActiveByRefreshHash(refreshTokenHash: string) {
      const [row] = await db
        .select()
        .from(sessions)
        .where(and(eq(sessions.refreshTokenHash, refreshTokenHash), isNull(sessions.revokedAt)))
        .limit(1);
      return row;
    },
    async touch(id: string, at: Date): Promise<void> {
      await db.update(sessions).set({ lastSeenAt: at }).where(eq(sessions.id, id));
    },
    /** Swaps both tokens atomically; fails (returns false) if the old refresh token was already used. */
    async rotate(
      id: string,
      oldRefreshHash: string,
      next: { authTokenHash: string; refreshTokenHash: string; at: Date },
    ) {
      const rows = await db
        .update(sessions)
        .set({
          authTokenHash: next.authTokenHash,
          refreshTokenHash: next.refreshTokenHash,
          lastSeenAt: next.at,
        })
        .where(
          and(eq(sessions.id, id), eq(sessions.refreshTokenHash, oldRefreshHash), isNull(sessions.revokedAt)),
        )
        .returning({ id: sessions.id });
      return rows.length === 1;
    },
    async revoke(id: string, reason: string, at = new Date()): Promise<void> {
      await db
        .update(sessions)
        .set({ revokedAt: at, revokedReason: reason })
        .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)));
    },
    /** The user's sessions not revoked yet (the caller drops idle and expired ones). */
    async listUnrevokedForUser(userId: string): Promise<SessionRow[]> {
      return db
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .orderBy(desc(sessions.lastSeenAt));
    },
    /** Revokes one of this user's sessions; false when it is not theirs or already ended. */
    async revokeForUser(userId: string, id: string, reason: string, at = new Date()): Promise<boolean> {
      const rows = await db
        .update(sessions)
        .set({ revokedAt: at, revokedReason: reason })
        .where(and(eq(sessions.id, id), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      return rows.length === 1;
    },
    /** Revokes every live session of the user, except `exceptId` when given; returns how many. */
    async revokeAllForUser(
      userId: string,
      reason: string,
      opts: { exceptId?: string; at?: Date } = {},
    ): Promise<number> {
      const rows = await db
        .update(sessions)
        .set({ revokedAt: opts.at ?? new Date(), revokedReason: reason })
        .where(
          and(
            eq(sessions.userId, userId),
            isNull(sessions.revokedAt),
            opts.exceptId ? ne(sessions.id, opts.exceptId) : undefined,
          ),
        )
        .returning({ id: sessions.id });
      return rows.length;
    },
  };
}
export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
