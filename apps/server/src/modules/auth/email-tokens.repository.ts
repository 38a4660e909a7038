import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { hashToken, newToken } from './tokens';
import { emailTokens } from '../../db/schema/index';

export type EmailTokenPurpose = 'password_reset' | 'email_verify' | 'sign_in_unlock' | 'email_change';
export type EmailTokenRow = typeof emailTokens.$inferSelect;

/** Single-use emailed tokens, stored as hashes. */
export function createEmailTokensRepository(db: Db) {
  return {
    /**
     * A new token for the user, valid for `ttlMs` from `at`; only its hash is stored. An
     * `email_change` token carries the address it moves the account to.
     */
    async issue(
      userId: string,
      purpose: EmailTokenPurpose,
      ttlMs: number,
      at: Date,
      newEmail?: string,
    ): Promise<string> {
      const token = newToken();
      await this.insert({
        userId,
        purpose,
        tokenHash: hashToken(token),
        expiresAt: new Date(at.getTime() + ttlMs),
        createdAt: at,
        newEmail: newEmail ?? null,
      });
      return token;
    },
    async insert(values: {
      userId: string;
      purpose: EmailTokenPurpose;
      tokenHash: string;
      expiresAt: Date;
      createdAt: Date;
      newEmail?: string | null;
    }) {
      await db.insert(emailTokens).values(values);
    },
    /** The live token with this hash and purpose, if any (not used, not expired). */
    async findLive(
      purpose: EmailTokenPurpose,
      tokenHash: string,
      at: Date,
    ): Promise<EmailTokenRow | undefined> {
      const [row] = await db
        .select()
        .from(emailTokens)
        .where(
          and(
            eq(emailTokens.tokenHash, tokenHash),
            eq(emailTokens.purpose, purpose),
            isNull(emailTokens.usedAt),
            gt(emailTokens.expiresAt, at),
          ),
        )
        .limit(1);
      return row;
    },
    /**
     * A token whatever its state (used, expired): only to tell someone who opens a link again what
     * it already did, never to act on it.
     */
    async findAny(purpose: EmailTokenPurpose, tokenHash: string): Promise<EmailTokenRow | undefined> {
      const [row] = await db
        .select()
        .from(emailTokens)
        .where(and(eq(emailTokens.tokenHash, tokenHash), eq(emailTokens.purpose, purpose)))
        .limit(1);
      return row;
    },
    /** Marks a live token used; only one caller can win (single use under concurrency). */
    async consume(
      purpose: EmailTokenPurpose,
      tokenHash: string,
      at: Date,
    ): Promise<EmailTokenRow | undefined> {
      const [row] = await db
        .update(emailTokens)
        .set({ usedAt: at })
        .where(
          and(
            eq(emailTokens.tokenHash, tokenHash),
            eq(emailTokens.purpose, purpose),
            isNull(emailTokens.usedAt),
            gt(emailTokens.expiresAt, at),
          ),
        )
        .returning();
      return row;
    },
    /** Retires every unused token of this purpose for the user (a newer one replaces them, or they are moot). */
    async retireAll(userId: string, purpose: EmailTokenPurpose, at: Date): Promise<void> {
      await db
        .update(emailTokens)
        .set({ usedAt: at })
        .where(
          and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, purpose), isNull(emailTokens.usedAt)),
        );
    },
  };
}
export type EmailTokensRepository = ReturnType<typeof createEmailTokensRepository>;
