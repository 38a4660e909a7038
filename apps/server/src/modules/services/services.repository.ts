import { and, asc, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { providerRatingCount, providerRatingMean } from '../../db/provider-rating';
import {
  analysisServices,
  providers,
  sellableOffers,
  serviceOffers,
  userProviders,
} from '../../db/schema/index';

export type AnalysisServiceRow = typeof analysisServices.$inferSelect;
export type NewAnalysisServiceRow = typeof analysisServices.$inferInsert;
export type ServiceOfferRow = typeof serviceOffers.$inferSelect;

/** A sellable offer with what a page shows of its provider. */
export interface OfferRow {
  serviceId: string;
  providerId: string;
  providerName: string;
  providerSpecialty: string | null;
  providerKind: 'professional' | 'organisation' | 'automated';
  providerDemo: boolean;
  ratingMean: number | null;
  ratingCount: number;
  priceCents: number;
  turnaround: string;
  modalities: string[];
  isConnected: boolean;
}

/** A service, provider and price a purchase may be made for. */
export interface LiveOffer {
  service: AnalysisServiceRow;
  providerId: string;
  providerName: string;
  priceCents: number;
}

/** The catalogue's first entries and their offers (a new installation, the demo data). */
function createCatalogueSeedRepository(db: Db) {
  return {
    async countServices(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(analysisServices);
      return Number(row?.n ?? 0);
    },

    /**
     * Inserts services whose name is new, in one transaction; several processes starting at once
     * insert each once. Returns how many services were new.
     */
    async insertServices(entries: NewAnalysisServiceRow[]): Promise<number> {
      if (entries.length === 0) return 0;
      const rows = await db
        .insert(analysisServices)
        .values(entries)
        .onConflictDoNothing({ target: analysisServices.name })
        .returning({ id: analysisServices.id });
      return rows.length;
    },

    async findServicesByName(names: string[]): Promise<AnalysisServiceRow[]> {
      if (names.length === 0) return [];
      return db.select().from(analysisServices).where(inArray(analysisServices.name, names));
    },

    /** Adds offers that do not exist yet (a retired one stays retired). Returns how many were new. */
    async insertOffers(
      offers: Array<{ serviceId: string; providerId: string; priceCents: number }>,
    ): Promise<number> {
      if (offers.length === 0) return 0;
      const rows = await db
        .insert(serviceOffers)
        .values(offers)
        .onConflictDoNothing()
        .returning({ serviceId: serviceOffers.serviceId });
      return rows.length;
    },
  };
}

/** What users may buy: live services and offers, with each provider's rating. */
function createLiveOffersRepository(db: Db) {
  const ratingMean = providerRatingMean;
  const ratingCount = providerRatingCount;

  return {
    /** Live services in catalogue order. */
    async listLiveServices(): Promise<AnalysisServiceRow[]> {
      return db
        .select()
        .from(analysisServices)
        .where(isNull(analysisServices.retiredAt))
        .orderBy(asc(analysisServices.sortOrder), asc(analysisServices.name));
    },

    /** Sellable offers, marked when the provider is in the user's network. */
    async listLiveOffers(userId: string): Promise<OfferRow[]> {
      const rows = await db
        .select({
          serviceId: sellableOffers.serviceId,
          providerId: sellableOffers.providerId,
          providerName: providers.name,
          providerSpecialty: providers.specialty,
          providerKind: providers.kind,
          providerDemo: providers.demo,
          ratingMean,
          ratingCount,
          priceCents: sellableOffers.priceCents,
          turnaround: sellableOffers.turnaround,
          modalities: sellableOffers.modalities,
          isConnected: sql<boolean>`exists (select 1 from ${userProviders} where ${userProviders.userId} = ${userId} and ${userProviders.providerId} = ${providers.id})`,
        })
        .from(sellableOffers)
        .innerJoin(providers, eq(providers.id, sellableOffers.providerId))
        .orderBy(asc(sellableOffers.priceCents), asc(providers.name));
      return rows.map((r) => ({
        ...r,
        ratingMean: r.ratingMean === null ? null : Number(r.ratingMean),
        ratingCount: Number(r.ratingCount),
      }));
    },

    /** The sellable offer of this provider for this service, if any. */
    async findLiveOffer(serviceId: string, providerId: string): Promise<LiveOffer | undefined> {
      const [row] = await db
        .select({
          service: analysisServices,
          providerId: providers.id,
          providerName: providers.name,
          priceCents: sellableOffers.priceCents,
        })
        .from(sellableOffers)
        .innerJoin(analysisServices, eq(analysisServices.id, sellableOffers.serviceId))
        .innerJoin(providers, eq(providers.id, sellableOffers.providerId))
        .where(and(eq(sellableOffers.serviceId, serviceId), eq(sellableOffers.providerId, providerId)))
        .limit(1);
      return row;
    },
  };
}

/** A professional's own offers: listed, saved, withdrawn. */
function createOwnOffersRepository(db: Db) {
  return {
    /** Every offer of one provider, retired ones too. */
    async listOffersOf(providerId: string): Promise<ServiceOfferRow[]> {
      return db.select().from(serviceOffers).where(eq(serviceOffers.providerId, providerId));
    },

    async findOfferOf(serviceId: string, providerId: string): Promise<ServiceOfferRow | undefined> {
      const [row] = await db
        .select()
        .from(serviceOffers)
        .where(and(eq(serviceOffers.serviceId, serviceId), eq(serviceOffers.providerId, providerId)))
        .limit(1);
      return row;
    },

    /** Creates or changes a provider's own offer (bringing back one they withdrew). */
    async saveOffer(values: {
      serviceId: string;
      providerId: string;
      priceCents: number;
      turnaround: string;
      modalities: string[];
      at: Date;
    }): Promise<void> {
      const { at, ...offer } = values;
      await db
        .insert(serviceOffers)
        .values({ ...offer, createdAt: at, updatedAt: at })
        .onConflictDoUpdate({
          target: [serviceOffers.serviceId, serviceOffers.providerId],
          set: {
            priceCents: offer.priceCents,
            turnaround: offer.turnaround,
            modalities: offer.modalities,
            retiredAt: null,
            retiredBy: null,
            updatedAt: at,
          },
          // An offer an admin retired stays retired: only an admin restores it.
          setWhere: sql`${serviceOffers.retiredBy} is distinct from 'admin'`,
        });
    },

    async withdrawOffer(serviceId: string, providerId: string, at: Date): Promise<void> {
      await db
        .update(serviceOffers)
        .set({ retiredAt: at, retiredBy: 'provider', updatedAt: at })
        .where(
          and(
            eq(serviceOffers.serviceId, serviceId),
            eq(serviceOffers.providerId, providerId),
            isNull(serviceOffers.retiredAt),
          ),
        );
    },
  };
}

/**
 * The analysis service catalogue and its offers. What may be sold is the `sellable_offers` view
 * (migration 0017_trust.sql): nothing here decides it again.
 */
export function createServicesRepository(db: Db) {
  return {
    ...createCatalogueSeedRepository(db),
    ...createLiveOffersRepository(db),
    ...createOwnOffersRepository(db),
  };
}
export type ServicesRepository = ReturnType<typeof createServicesRepository>;
