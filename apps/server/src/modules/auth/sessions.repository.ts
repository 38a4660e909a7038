import { and, desc, eq, isNull, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rotatedRefreshTokens, sessions, users } from '../../db/schema/index';
import type { UserRow } from '../accounts';

export type SessionRow = typeof sessions.$inferSelect;

/** A live session with its account, as the session cache keeps it. */
export interface CachedSession {
  session: SessionRow;
  user: UserRow;
}

/** What this repository needs of the session cache (session-cache.ts provides it). */
export interface SessionCachePort {
  changes: { mark(): number; session(id: string, mark: number): Promise<void> };
  begin(): number;
  get(hash: string): CachedSession | undefined;
  set(hash: string, found: CachedSession, readGeneration: number): void;
  touched(sessionId: string, at: Date): void;
}

/** Sessions made and found (the live one behind a token read through the cache), and their last use. */
function createSessionLookupsRepository(db: Db, cache?: SessionCachePort) {
  return {
    async insert(values: typeof sessions.$inferInsert): Promise<SessionRow> {
      const [row] = await db.insert(sessions).values(values).returning();
      if (!row) throw new Error('session insert returned nothing');
      return row;
    },

    /** The live session behind a token; `fresh` skips the cache (before ending a session, say). */
    async findActiveByAuthHash(authTokenHash: string, opts: { fresh?: boolean } = {}) {
      if (!opts.fresh) {
        const hit = cache?.get(authTokenHash);
        if (hit) return hit;
      }
      const readGeneration = cache?.begin();
      const [row] = await db
        .select({ session: sessions, user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.authTokenHash, authTokenHash), isNull(sessions.revokedAt)))
        .limit(1);
      if (row && cache && readGeneration !== undefined) cache.set(authTokenHash, row, readGeneration);
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

    /** The session a refresh token belonged to before it was exchanged, and when that happened. */
    async findRotated(refreshTokenHash: string) {
      const [row] = await db
        .select()
        .from(rotatedRefreshTokens)
        .where(eq(rotatedRefreshTokens.tokenHash, refreshTokenHash))
        .limit(1);
      return row;
    },

    /** Whether the session exists and has not been revoked (signed out, reset, revoked, disabled). */
    async isUnrevoked(id: string): Promise<boolean> {
      const [row] = await db
        .select({ id: sessions.id })
        .from(sessions)
        .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)))
        .limit(1);
      return Boolean(row);
    },

    async touch(id: string, at: Date): Promise<void> {
      await db.update(sessions).set({ lastSeenAt: at }).where(eq(sessions.id, id));
      cache?.touched(id, at);
    },

    /** The user's sessions not revoked yet (the caller drops idle and expired ones). */
    async listUnrevokedForUser(userId: string): Promise<SessionRow[]> {
      return db
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .orderBy(desc(sessions.lastSeenAt));
    },
  };
}

/** A live session renewed: a fresh proof of identity, new tokens. Every process's cache hears of it. */
function createSessionRenewalRepository(db: Db, cache?: SessionCachePort) {
  const mark = () => cache?.changes.mark() ?? 0;
  const changed = async (ids: string[], since: number) => {
    if (cache) await Promise.all(ids.map((id) => cache.changes.session(id, since)));
  };
  return {
    /** Records a fresh proof of identity in the session (security settings, fresh-proof.ts). */
    async markReauthenticated(id: string, at: Date): Promise<void> {
      const since = mark();
      const rows = await db
        .update(sessions)
        .set({ reauthenticatedAt: at })
        .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      await changed(
        rows.map((r) => r.id),
        since,
      );
    },

    /** Swaps both tokens atomically; fails (returns false) if the old refresh token was already used. */
    async rotate(
      id: string,
      oldRefreshHash: string,
      next: { authTokenHash: string; refreshTokenHash: string; at: Date },
    ) {
      const since = mark();
      const rows = await db.transaction(async (tx) => {
        const swapped = await tx
          .update(sessions)
          .set({
            authTokenHash: next.authTokenHash,
            refreshTokenHash: next.refreshTokenHash,
            lastSeenAt: next.at,
          })
          .where(
            and(
              eq(sessions.id, id),
              eq(sessions.refreshTokenHash, oldRefreshHash),
              isNull(sessions.revokedAt),
            ),
          )
          .returning({ id: sessions.id });
        // Remembered, so the old token presented again is recognised as stolen (see findRotated).
        if (swapped.length === 1)
          await tx
            .insert(rotatedRefreshTokens)
            .values({ tokenHash: oldRefreshHash, sessionId: id, rotatedAt: next.at })
            .onConflictDoNothing();
        return swapped;
      });
      await changed(
        rows.map((r) => r.id),
        since,
      );
      return rows.length === 1;
    },
  };
}

/** Sessions ended: one, one of a user's, or all of a user's. Every process's cache hears of it. */
function createSessionRevocationRepository(db: Db, cache?: SessionCachePort) {
  const mark = () => cache?.changes.mark() ?? 0;
  const changed = async (ids: string[], since: number) => {
    if (cache) await Promise.all(ids.map((id) => cache.changes.session(id, since)));
  };
  return {
    async revoke(id: string, reason: string, at = new Date()): Promise<void> {
      const since = mark();
      const rows = await db
        .update(sessions)
        .set({ revokedAt: at, revokedReason: reason })
        .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      await changed(
        rows.map((r) => r.id),
        since,
      );
    },

    /** Revokes one of this user's sessions; false when it is not theirs or already ended. */
    async revokeForUser(userId: string, id: string, reason: string, at = new Date()): Promise<boolean> {
      const since = mark();
      const rows = await db
        .update(sessions)
        .set({ revokedAt: at, revokedReason: reason })
        .where(and(eq(sessions.id, id), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      await changed(
        rows.map((r) => r.id),
        since,
      );
      return rows.length === 1;
    },

    /** Revokes every live session of the user, except `exceptId` when given; returns how many. */
    async revokeAllForUser(
      userId: string,
      reason: string,
      opts: { exceptId?: string; at?: Date } = {},
    ): Promise<number> {
      const since = mark();
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
      await changed(
        rows.map((r) => r.id),
        since,
      );
      return rows.length;
    },
  };
}

/**
 * Server-side session records, found by the hash of the token the client presents. With a cache,
 * live sessions are answered from memory; every write here evicts what it changed at once (other
 * processes hear of it through the database's change notifications).
 */
export function createSessionsRepository(db: Db, cache?: SessionCachePort) {
  return {
    ...createSessionLookupsRepository(db, cache),
    ...createSessionRenewalRepository(db, cache),
    ...createSessionRevocationRepository(db, cache),
  };
}
export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
