import { and, desc, eq, isNotNull, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { providerRatingCount, providerRatingMean } from '../../db/provider-rating';
import { professionalProfiles, providers, userProviders, users } from '../../db/schema/index';

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
  /** What patients' ratings make of it (provider_ratings). */
  ratings: { mean: number | null; count: number };
  /** The linked professional's registration, as an admin verified it (professional_profiles). */
  licence: {
    licenseState: string;
    reviewedAt: Date | null;
    hospital: string;
    position: string | null;
    specialty: string;
    offersPausedAt: Date | null;
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

const ratingColumns = { mean: providerRatingMean, count: providerRatingCount };

const licenceColumns = {
  licenseState: professionalProfiles.licenseState,
  reviewedAt: professionalProfiles.reviewedAt,
  hospital: professionalProfiles.hospital,
  position: professionalProfiles.position,
  specialty: professionalProfiles.specialty,
  offersPausedAt: professionalProfiles.offersPausedAt,
};

type JoinedRow = {
  provider: ProviderRow;
  linkedUser: ProviderWithLink['linkedUser'];
  ratings: { mean: number | null; count: number };
  licence: ProviderWithLink['licence'] | { licenseState: null };
};

const toWithLink = (r: JoinedRow): ProviderWithLink => ({
  provider: r.provider,
  // A left join gives an object of nulls when nothing is linked.
  linkedUser: r.linkedUser?.id ? r.linkedUser : null,
  ratings: { mean: r.ratings.mean === null ? null : Number(r.ratings.mean), count: Number(r.ratings.count) },
  licence: r.licence?.licenseState ? (r.licence as ProviderWithLink['licence']) : null,
});

/**
 * In the searchable directory: a live entry, and a professional's profile only once published and
 * while their account is active (a disabled professional leaves the directory).
 */
export const listedInDirectory: SQL = sql`(${providers.listed} = 'directory' and ${providers.retiredAt} is null and (${providers.kind} <> 'professional' or (${providers.publishedAt} is not null and exists (select 1 from ${users} u where u.id = ${providers.linkedUserId} and u.account_status = 'active'))))`;

/** The predicate of the unique index on directory emails (a professional's profile is not in it). */
const directoryEmailKey = sql`${providers.listed} = 'directory' and ${providers.kind} <> 'professional'`;

/** Providers with their linked account, ratings and licence. */
const withLink = (db: Db) =>
  db
    .select({
      provider: providers,
      linkedUser: linkedUserColumns,
      ratings: ratingColumns,
      licence: licenceColumns,
    })
    .from(providers)
    .leftJoin(users, eq(users.id, providers.linkedUserId))
    .leftJoin(professionalProfiles, eq(professionalProfiles.userId, providers.linkedUserId));

/** What a user may see of a provider: the directory and their own contacts. */
const visibleTo = (userId: string): SQL =>
  sql`(${listedInDirectory} or (${providers.listed} = 'contact' and ${providers.createdBy} = ${userId}))`;

/** The directory's entries as they are listed and found. */
function createDirectoryLookupsRepository(db: Db) {
  return {
    /** The one entry of a kind that has one (the platform's automated analysis). */
    async findByKind(kind: ProviderRow['kind']): Promise<ProviderRow | undefined> {
      const [row] = await db
        .select()
        .from(providers)
        .where(and(eq(providers.kind, kind), eq(providers.listed, 'directory')))
        .limit(1);
      return row;
    },

    /** Directory entries, rated first (best first), then unrated, by name. */
    async listDirectory(filter: DirectoryFilter): Promise<ProviderWithLink[]> {
      const where: SQL[] = [listedInDirectory];
      if (filter.q)
        where.push(
          // The email shown: a professional's account email stays private unless they show it.
          sql`(strpos(lower(${providers.name}), lower(${filter.q})) > 0 or strpos(lower(${providers.email}), lower(${filter.q})) > 0)`,
        );
      if (filter.specialty) where.push(sql`lower(${providers.specialty}) = lower(${filter.specialty})`);
      if (filter.country)
        where.push(sql`lower(${providers.location} ->> 'country') = lower(${filter.country})`);
      const rows = await withLink(db)
        .where(and(...where))
        .orderBy(sql`${ratingColumns.mean} desc nulls last`, sql`lower(${providers.name})`, providers.id);
      return rows.map(toWithLink);
    },

    /** Every directory entry, retired ones included (admin area). */
    async listDirectoryForAdmin(): Promise<ProviderWithLink[]> {
      const rows = await withLink(db)
        .where(eq(providers.listed, 'directory'))
        .orderBy(sql`${providers.retiredAt} is not null`, sql`lower(${providers.name})`, providers.id);
      return rows.map(toWithLink);
    },

    async findDirectoryById(id: string): Promise<ProviderWithLink | undefined> {
      const [row] = await withLink(db)
        .where(and(eq(providers.id, id), eq(providers.listed, 'directory')))
        .limit(1);
      return row && toWithLink(row);
    },

    /** The directory entry with this email; a professional's own profile before an organisation using it. */
    async findLiveDirectoryByEmail(emailNormalized: string): Promise<ProviderWithLink | undefined> {
      const [row] = await withLink(db)
        .where(and(eq(providers.emailNormalized, emailNormalized), listedInDirectory))
        .orderBy(sql`${providers.kind} = 'professional' desc`, providers.createdAt)
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
            directoryEmailKey,
            exceptId ? ne(providers.id, exceptId) : undefined,
          ),
        )
        .limit(1);
      return row;
    },

    /** Another organisation already linked to this account, if any (their own profile does not count). */
    async findLinkedTo(userId: string, exceptId: string): Promise<ProviderRow | undefined> {
      const [row] = await db
        .select()
        .from(providers)
        .where(
          and(
            eq(providers.linkedUserId, userId),
            eq(providers.listed, 'directory'),
            ne(providers.kind, 'professional'),
            ne(providers.id, exceptId),
          ),
        )
        .limit(1);
      return row;
    },
  };
}

/** The directory's entries made and changed. */
function createDirectoryEntriesRepository(db: Db) {
  return {
    /** Inserts directory entries whose email is not in the directory yet; returns how many were new. */
    async insertDirectory(rows: NewProviderRow[]): Promise<number> {
      if (rows.length === 0) return 0;
      const created = await db
        .insert(providers)
        .values(rows.map((r) => ({ ...r, listed: 'directory' as const, createdBy: null })))
        .onConflictDoNothing({ target: providers.emailNormalized, where: directoryEmailKey })
        .returning({ id: providers.id });
      return created.length;
    },

    async insertDirectoryEntry(values: NewProviderRow): Promise<ProviderRow | undefined> {
      const [row] = await db
        .insert(providers)
        .values({ ...values, listed: 'directory', createdBy: null })
        .onConflictDoNothing({ target: providers.emailNormalized, where: directoryEmailKey })
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
  };
}

/** Professionals' own profiles and their registrations. */
function createProfessionalProfilesRepository(db: Db) {
  return {
    /** A professional's own profile (published or not), with their registration. */
    async findProfessionalProfile(userId: string): Promise<ProviderWithLink | undefined> {
      const [row] = await withLink(db)
        .where(and(eq(providers.kind, 'professional'), eq(providers.linkedUserId, userId)))
        .limit(1);
      return row && toWithLink(row);
    },

    /** Creates a professional's profile once (concurrent first visits make one). */
    async insertProfessionalProfile(values: NewProviderRow): Promise<void> {
      await db
        .insert(providers)
        .values({ ...values, kind: 'professional', listed: 'directory', createdBy: null })
        .onConflictDoNothing({
          target: providers.linkedUserId,
          where: sql`${providers.kind} = 'professional'`,
        });
    },

    /**
     * The registration a professional's profile starts from, once an admin verified the licence and
     * the professional confirmed their email (what a reading needs, provider_fulfillers).
     */
    async findVerifiedProfessional(userId: string) {
      const [row] = await db
        .select({ user: users, licence: professionalProfiles })
        .from(users)
        .innerJoin(professionalProfiles, eq(professionalProfiles.userId, users.id))
        .where(
          and(
            eq(users.id, userId),
            eq(users.role, 'professional'),
            eq(users.accountStatus, 'active'),
            isNotNull(users.emailVerifiedAt),
            isNotNull(professionalProfiles.reviewedAt),
          ),
        )
        .limit(1);
      return row;
    },

    /** Pauses or resumes every offer of a professional (professional_profiles.offers_paused_at). */
    async setOffersPaused(userId: string, pausedAt: Date | null): Promise<void> {
      await db
        .update(professionalProfiles)
        .set({ offersPausedAt: pausedAt })
        .where(eq(professionalProfiles.userId, userId));
    },
  };
}

/** What each user sees: their own contacts and their trusted network. */
function createNetworksRepository(db: Db) {
  return {
    /** A provider the user may see (a live directory entry or their own contact). */
    async findVisible(userId: string, id: string): Promise<ProviderWithLink | undefined> {
      const [row] = await withLink(db)
        .where(and(eq(providers.id, id), visibleTo(userId)))
        .limit(1);
      return row && toWithLink(row);
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
      const [row] = await withLink(db)
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

    /** The user's trusted network (what they may still see of it), newest first. */
    async listNetwork(userId: string): Promise<ProviderWithLink[]> {
      const rows = await db
        .select({
          provider: providers,
          linkedUser: linkedUserColumns,
          ratings: ratingColumns,
          licence: licenceColumns,
        })
        .from(userProviders)
        .innerJoin(providers, eq(providers.id, userProviders.providerId))
        .leftJoin(users, eq(users.id, providers.linkedUserId))
        .leftJoin(professionalProfiles, eq(professionalProfiles.userId, providers.linkedUserId))
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

/** The provider directory, users' own contacts, and each user's trusted network. */
export function createProvidersRepository(db: Db) {
  return {
    ...createDirectoryLookupsRepository(db),
    ...createDirectoryEntriesRepository(db),
    ...createProfessionalProfilesRepository(db),
    ...createNetworksRepository(db),
  };
}
export type ProvidersRepository = ReturnType<typeof createProvidersRepository>;
