import { and, count, desc, eq, isNull, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { providers, userProviders, users } from '../../db/schema/index';

export type ProviderRow = typeof providers.$inferSelect;
export type NewProviderRow = typeof providers.$inferInsert;
/** A provider with what decides whether it is on the platform: its linked account, if any. */
export interface ProviderWithLink {
  provider: ProviderRow;
  linkedUser: {
    id: string;
    email: string;
    name: string | null;
    role: string;
    accountStatus: string;
    verified: boolean;
  } | null;
}

export interface DirectoryFilter {
  /** Name or email contains it, any letter case. */
  q?: string;
  specialty?: string;
  country?: string;
}

const linkedUserColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  accountStatus: users.accountStatus,
  verified: sql<boolean>`${users.emailVerifiedAt} is not null`,
};

const toWithLink = (r: { provider: ProviderRow; linkedUser: ProviderWithLink['linkedUser'] }) => ({
  provider: r.provider,
  // A left join gives an object of nulls when nothing is linked.
  linkedUser: r.linkedUser?.id ? r.linkedUser : null,
});

/** The provider directory, users' own contacts, and each user's trusted network. */
export function createProvidersRepository(db: Db) {
  const withLink = () =>
    db
      .select({ provider: providers, linkedUser: linkedUserColumns })
      .from(providers)
      .leftJoin(users, eq(users.id, providers.linkedUserId));

  /** What a user may see of a provider: the live directory and their own contacts. */
  const visibleTo = (userId: string): SQL =>
    sql`((${providers.listed} = 'directory' and ${providers.retiredAt} is null) or (${providers.listed} = 'contact' and ${providers.createdBy} = ${userId}))`;

  return {
    async countDirectory(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(providers).where(eq(providers.listed, 'directory'));
      return Number(row?.n ?? 0);
    },

    /** Inserts directory entries whose email is not in the directory yet; returns how many were new. */
    async insertDirectory(rows: NewProviderRow[]): Promise<number> {
      if (rows.length === 0) return 0;
      const created = await db
        .insert(providers)
        .values(rows.map((r) => ({ ...r, listed: 'directory' as const, createdBy: null })))
        .onConflictDoNothing({
          target: providers.emailNormalized,
          where: sql`${providers.listed} = 'directory'`,
        })
        .returning({ id: providers.id });
      return created.length;
    },

    /** Live directory entries, by name. */
    async listDirectory(filter: DirectoryFilter): Promise<ProviderWithLink[]> {
      const where: SQL[] = [eq(providers.listed, 'directory'), isNull(providers.retiredAt)];
      if (filter.q)
        where.push(
          sql`(strpos(lower(${providers.name}), lower(${filter.q})) > 0 or strpos(${providers.emailNormalized}, lower(${filter.q})) > 0)`,
        );
      if (filter.specialty) where.push(sql`lower(${providers.specialty}) = lower(${filter.specialty})`);
      if (filter.country)
        where.push(sql`lower(${providers.location} ->> 'country') = lower(${filter.country})`);
      const rows = await withLink()
        .where(and(...where))
        .orderBy(sql`lower(${providers.name})`, providers.id);
      return rows.map(toWithLink);
    },

    /** Every directory entry, retired ones included (admin area). */
    async listDirectoryForAdmin(): Promise<ProviderWithLink[]> {
      const rows = await withLink()
        .where(eq(providers.listed, 'directory'))
        .orderBy(sql`${providers.retiredAt} is not null`, sql`lower(${providers.name})`, providers.id);
      return rows.map(toWithLink);
    },

    async findDirectoryById(id: string): Promise<ProviderWithLink | undefined> {
      const [row] = await withLink()
        .where(and(eq(providers.id, id), eq(providers.listed, 'directory')))
        .limit(1);
      return row && toWithLink(row);
    },

    /** A provider the user may see (a live directory entry or their own contact). */
    async findVisible(userId: string, id: string): Promise<ProviderWithLink | undefined> {
      const [row] = await withLink()
        .where(and(eq(providers.id, id), visibleTo(userId)))
        .limit(1);
      return row && toWithLink(row);
    },

    async findLiveDirectoryByEmail(emailNormalized: string): Promise<ProviderWithLink | undefined> {
      const [row] = await withLink()
        .where(
          and(
            eq(providers.emailNormalized, emailNormalized),
            eq(providers.listed, 'directory'),
            isNull(providers.retiredAt),
          ),
        )
        .limit(1);
      return row && toWithLink(row);
    },

    /** The directory entry holding this email, retired or not (the email is unique in the directory). */
    async findDirectoryByEmail(emailNormalized: string, exceptId?: string): Promise<ProviderRow | undefined> {
      const [row] = await db
        .select()
        .from(providers)
        .where(
          and(
            eq(providers.emailNormalized, emailNormalized),
            eq(providers.listed, 'directory'),
            exceptId ? ne(providers.id, exceptId) : undefined,
          ),
        )
        .limit(1);
      return row;
    },

    /** The user's contact for this email, made on first use (concurrent calls get the same row). */
    async findOrCreateContact(
      userId: string,
      email: string,
      emailNormalized: string,
    ): Promise<ProviderWithLink> {
      await db
        .insert(providers)
        .values({ name: email, email, emailNormalized, listed: 'contact', createdBy: userId })
        .onConflictDoNothing({
          target: [providers.createdBy, providers.emailNormalized],
          where: sql`${providers.listed} = 'contact'`,
        });
      const [row] = await withLink()
        .where(
          and(
            eq(providers.listed, 'contact'),
            eq(providers.createdBy, userId),
            eq(providers.emailNormalized, emailNormalized),
          ),
        )
        .limit(1);
      return toWithLink(row!);
    },

    async insertDirectoryEntry(values: NewProviderRow): Promise<ProviderRow | undefined> {
      const [row] = await db
        .insert(providers)
        .values({ ...values, listed: 'directory', createdBy: null })
        .onConflictDoNothing({
          target: providers.emailNormalized,
          where: sql`${providers.listed} = 'directory'`,
        })
        .returning();
      return row;
    },

    async updateDirectoryEntry(
      id: string,
      values: Partial<NewProviderRow>,
    ): Promise<ProviderRow | undefined> {
      const [row] = await db
        .update(providers)
        .set(values)
        .where(and(eq(providers.id, id), eq(providers.listed, 'directory')))
        .returning();
      return row;
    },

    /** Another directory entry already linked to this account, if any. */
    async findLinkedTo(userId: string, exceptId: string): Promise<ProviderRow | undefined> {
      const [row] = await db
        .select()
        .from(providers)
        .where(
          and(
            eq(providers.linkedUserId, userId),
            eq(providers.listed, 'directory'),
            ne(providers.id, exceptId),
          ),
        )
        .limit(1);
      return row;
    },

    /** The user's trusted network (what they may still see of it), newest first. */
    async listNetwork(userId: string): Promise<ProviderWithLink[]> {
      const rows = await db
        .select({ provider: providers, linkedUser: linkedUserColumns })
        .from(userProviders)
        .innerJoin(providers, eq(providers.id, userProviders.providerId))
        .leftJoin(users, eq(users.id, providers.linkedUserId))
        .where(and(eq(userProviders.userId, userId), visibleTo(userId)))
        .orderBy(desc(userProviders.createdAt), providers.id);
      return rows.map(toWithLink);
    },

    /** Adds to the network; true when it was not there yet. */
    async addToNetwork(userId: string, providerId: string, at: Date): Promise<boolean> {
      const rows = await db
        .insert(userProviders)
        .values({ userId, providerId, createdAt: at })
        .onConflictDoNothing()
        .returning({ providerId: userProviders.providerId });
      return rows.length > 0;
    },

    /** Removes from the network; true when it was there. */
    async removeFromNetwork(userId: string, providerId: string): Promise<boolean> {
      const rows = await db
        .delete(userProviders)
        .where(and(eq(userProviders.userId, userId), eq(userProviders.providerId, providerId)))
        .returning({ providerId: userProviders.providerId });
      return rows.length > 0;
    },
  };
}
export type ProvidersRepository = ReturnType<typeof createProvidersRepository>;
