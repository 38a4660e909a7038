import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { professionalProfiles, users } from '../../db/schema/index';

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
export type ProfessionalProfileRow = typeof professionalProfiles.$inferSelect;

/**
 * Who hears of changed accounts: take a mark before the write, then report the committed change
 * (auth/session-cache.ts implements it, so cached sessions carry the new row at once).
 */
export interface AccountChanges {
  mark(): number;
  user(id: string, mark: number): Promise<void>;
}

/** Accounts made and found. */
function createAccountLookupsRepository(db: Db) {
  return {
    async findById(id: string): Promise<UserRow | undefined> {
      const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
      return row;
    },

    async findByEmail(emailNormalized: string): Promise<UserRow | undefined> {
      const [row] = await db.select().from(users).where(eq(users.emailNormalized, emailNormalized)).limit(1);
      return row;
    },

    /** Inserts unless the email is taken; returns undefined on a duplicate (no exception, no row). */
    async insertIfEmailFree(values: NewUserRow): Promise<UserRow | undefined> {
      const [row] = await db
        .insert(users)
        .values(values)
        .onConflictDoNothing({ target: users.emailNormalized })
        .returning();
      return row;
    },

    /**
     * The account that has proven it owns this email, if any. Shares, transfers and invitations
     * addressed to an email must use this, never findByEmail: an unverified account does not
     * receive what other people send to its address.
     */
    async findVerifiedByEmail(emailNormalized: string): Promise<UserRow | undefined> {
      const [row] = await db
        .select()
        .from(users)
        .where(and(eq(users.emailNormalized, emailNormalized), sql`${users.emailVerifiedAt} is not null`))
        .limit(1);
      return row;
    },

    async findByGoogleSub(sub: string): Promise<UserRow | undefined> {
      const [row] = await db.select().from(users).where(eq(users.googleSub, sub)).limit(1);
      return row;
    },

    async hasAdmin(): Promise<boolean> {
      const [row] = await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.role, 'admin')))
        .limit(1);
      return row !== undefined;
    },

    async count(): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
      return row?.n ?? 0;
    },
  };
}

/** Changes to an account that every process's account cache must hear of. */
function createAccountChangesRepository(db: Db, changes?: AccountChanges) {
  const mark = () => changes?.mark() ?? 0;
  const changed = async (id: string, since: number) => {
    await changes?.user(id, since);
  };
  return {
    async update(id: string, values: Partial<NewUserRow>): Promise<UserRow | undefined> {
      const since = mark();
      const [row] = await db.update(users).set(values).where(eq(users.id, id)).returning();
      if (row) await changed(id, since);
      return row;
    },

    /**
     * Moves the account to a new email address, confirmed by the link that was sent to it; undefined
     * when another account took the address meanwhile (the unique index decides).
     */
    async changeEmail(
      id: string,
      email: string,
      emailNormalized: string,
      at: Date,
    ): Promise<UserRow | undefined> {
      const since = mark();
      try {
        const [row] = await db
          .update(users)
          .set({ email, emailNormalized, emailVerifiedAt: at, updatedAt: at })
          .where(eq(users.id, id))
          .returning();
        if (row) await changed(id, since);
        return row;
      } catch (err) {
        // A unique violation (the driver's error, or the one Drizzle wraps it in).
        const e = err as { code?: string; cause?: { code?: string } };
        if ((e.code ?? e.cause?.code) === '23505') return undefined;
        throw err;
      }
    },

    /** Links a Google account unless this user already has one or the id is taken. */
    async linkGoogle(id: string, sub: string, values: Partial<NewUserRow>): Promise<UserRow | undefined> {
      const since = mark();
      const [row] = await db
        .update(users)
        .set({ ...values, googleSub: sub })
        .where(and(eq(users.id, id), sql`${users.googleSub} is null`))
        .returning();
      if (row) await changed(id, since);
      return row;
    },
  };
}

/** Professionals' registrations and their review. */
function createProfessionalsRepository(db: Db) {
  return {
    /** A new account with its professional profile, in one transaction; undefined if the email is taken. */
    async insertProfessionalIfEmailFree(
      values: NewUserRow,
      profile: Omit<typeof professionalProfiles.$inferInsert, 'userId'>,
    ): Promise<UserRow | undefined> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(users)
          .values(values)
          .onConflictDoNothing({ target: users.emailNormalized })
          .returning();
        if (!row) return undefined;
        await tx.insert(professionalProfiles).values({ ...profile, userId: row.id });
        return row;
      });
    },

    async listProfessionals(status: 'pending' | 'active' | 'rejected' | 'all') {
      return db
        .select({ user: users, profile: professionalProfiles })
        .from(users)
        .innerJoin(professionalProfiles, eq(professionalProfiles.userId, users.id))
        .where(
          and(eq(users.role, 'professional'), status === 'all' ? undefined : eq(users.accountStatus, status)),
        )
        .orderBy(desc(users.createdAt))
        .limit(500);
    },

    async findProfessional(id: string) {
      const [row] = await db
        .select({ user: users, profile: professionalProfiles })
        .from(users)
        .innerJoin(professionalProfiles, eq(professionalProfiles.userId, users.id))
        .where(and(eq(users.id, id), eq(users.role, 'professional')))
        .limit(1);
      return row;
    },

    async markProfessionalReviewed(userId: string, by: string, at: Date): Promise<void> {
      await db
        .update(professionalProfiles)
        .set({ reviewedAt: at, reviewedBy: by })
        .where(eq(professionalProfiles.userId, userId));
    },
  };
}

/**
 * Data access for accounts. Emails are looked up by their lower-cased form. `changes` hears of every
 * account changed here, so cached sessions of this process carry the new row at once.
 */
export function createUsersRepository(db: Db, changes?: AccountChanges) {
  return {
    ...createAccountLookupsRepository(db),
    ...createAccountChangesRepository(db, changes),
    ...createProfessionalsRepository(db),
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;

/**
 * Moves a user's storage use by `deltaBytes` (negative frees), never below zero: the one place
 * that changes `users.used_storage_bytes`. It runs in the caller's transaction, so the use moves
 * with the rows that make it (a processed upload, a deleted study, an ownership move, a delivered
 * report); the quota itself is checked by `requireWithinQuota` (quota.ts).
 */
export async function adjustStorageUse(
  tx: Pick<Db, 'update'>,
  userId: string,
  deltaBytes: number,
): Promise<void> {
  await tx
    .update(users)
    .set({ usedStorageBytes: sql`greatest(0, ${users.usedStorageBytes} + ${deltaBytes})` })
    .where(eq(users.id, userId));
}
