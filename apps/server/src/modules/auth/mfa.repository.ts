import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { mfaChallenges, mfaCodes, mfaRecoveryCodes } from '../../db/schema/index';

export type MfaChallengeRow = typeof mfaChallenges.$inferSelect;
export type MfaCodeRow = typeof mfaCodes.$inferSelect;

/** Sign-in challenges: made, found while live, consumed or failed. */
function createMfaChallengesRepository(db: Db) {
  return {
    async insertChallenge(values: typeof mfaChallenges.$inferInsert): Promise<MfaChallengeRow> {
      const [row] = await db.insert(mfaChallenges).values(values).returning();
      if (!row) throw new Error('challenge insert returned nothing');
      return row;
    },

    async findLiveChallenge(tokenHash: string, at: Date): Promise<MfaChallengeRow | undefined> {
      const [row] = await db
        .select()
        .from(mfaChallenges)
        .where(
          and(
            eq(mfaChallenges.tokenHash, tokenHash),
            isNull(mfaChallenges.consumedAt),
            gt(mfaChallenges.expiresAt, at),
          ),
        )
        .limit(1);
      return row;
    },

    /** The newest live challenge of the user opened for this purpose (`firstFactor`), if any. */
    async findLiveChallengeFor(
      userId: string,
      firstFactor: string,
      at: Date,
    ): Promise<MfaChallengeRow | undefined> {
      const [row] = await db
        .select()
        .from(mfaChallenges)
        .where(
          and(
            eq(mfaChallenges.userId, userId),
            eq(mfaChallenges.firstFactor, firstFactor),
            isNull(mfaChallenges.consumedAt),
            gt(mfaChallenges.expiresAt, at),
          ),
        )
        .orderBy(desc(mfaChallenges.createdAt))
        .limit(1);
      return row;
    },

    /** Ends the challenge; false if another request already did (one sign-in per challenge). */
    async consumeChallenge(id: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(mfaChallenges)
        .set({ consumedAt: at })
        .where(and(eq(mfaChallenges.id, id), isNull(mfaChallenges.consumedAt)))
        .returning({ id: mfaChallenges.id });
      return rows.length === 1;
    },

    async consumeAllChallenges(userId: string, at: Date): Promise<void> {
      await db
        .update(mfaChallenges)
        .set({ consumedAt: at })
        .where(and(eq(mfaChallenges.userId, userId), isNull(mfaChallenges.consumedAt)));
    },

    /** Counts a wrong answer against the challenge and returns the new count. */
    async failChallenge(id: string): Promise<number> {
      const [row] = await db
        .update(mfaChallenges)
        .set({ failedAttempts: sql`${mfaChallenges.failedAttempts} + 1` })
        .where(eq(mfaChallenges.id, id))
        .returning({ n: mfaChallenges.failedAttempts });
      return row?.n ?? 0;
    },
  };
}

/** The codes a challenge sends, and the account's recovery codes. */
function createMfaCodesRepository(db: Db) {
  return {
    /** Replaces any earlier code of the challenge with a new one. */
    async insertCode(values: {
      challengeId: string;
      codeHash: string;
      expiresAt: Date;
      createdAt: Date;
    }): Promise<void> {
      await db.transaction(async (tx) => {
        await tx
          .update(mfaCodes)
          .set({ usedAt: values.createdAt })
          .where(and(eq(mfaCodes.challengeId, values.challengeId), isNull(mfaCodes.usedAt)));
        await tx.insert(mfaCodes).values(values);
      });
    },

    async latestCode(challengeId: string): Promise<MfaCodeRow | undefined> {
      const [row] = await db
        .select()
        .from(mfaCodes)
        .where(eq(mfaCodes.challengeId, challengeId))
        .orderBy(desc(mfaCodes.createdAt))
        .limit(1);
      return row;
    },

    /** Counts a wrong try; at `maxTries` the code is spent. Returns the new count. */
    async failCode(id: string, maxTries: number, at: Date): Promise<number> {
      const [row] = await db
        .update(mfaCodes)
        .set({
          failedAttempts: sql`${mfaCodes.failedAttempts} + 1`,
          usedAt: sql`case when ${mfaCodes.failedAttempts} + 1 >= ${maxTries} then ${at.toISOString()}::timestamptz else ${mfaCodes.usedAt} end`,
        })
        .where(eq(mfaCodes.id, id))
        .returning({ n: mfaCodes.failedAttempts });
      return row?.n ?? 0;
    },

    /** Marks the code used; false if it was already used (a replay). */
    async useCode(id: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(mfaCodes)
        .set({ usedAt: at })
        .where(and(eq(mfaCodes.id, id), isNull(mfaCodes.usedAt)))
        .returning({ id: mfaCodes.id });
      return rows.length === 1;
    },

    async replaceRecoveryCodes(userId: string, hashes: string[], at: Date): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, userId));
        if (hashes.length > 0)
          await tx
            .insert(mfaRecoveryCodes)
            .values(hashes.map((codeHash) => ({ userId, codeHash, createdAt: at })));
      });
    },

    /** Uses the matching unused recovery code; false when none matches. */
    async useRecoveryCode(userId: string, codeHash: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(mfaRecoveryCodes)
        .set({ usedAt: at })
        .where(
          and(
            eq(mfaRecoveryCodes.userId, userId),
            eq(mfaRecoveryCodes.codeHash, codeHash),
            isNull(mfaRecoveryCodes.usedAt),
          ),
        )
        .returning({ id: mfaRecoveryCodes.id });
      return rows.length === 1;
    },
  };
}

/** Pending sign-ins, their emailed codes and the recovery codes of authenticator users. */
export function createMfaRepository(db: Db) {
  return {
    ...createMfaChallengesRepository(db),
    ...createMfaCodesRepository(db),
  };
}
export type MfaRepository = ReturnType<typeof createMfaRepository>;
