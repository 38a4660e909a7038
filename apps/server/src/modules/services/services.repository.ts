import { and, asc, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { analysisServices, providers, serviceOffers, userProviders } from '../../db/schema/index';

export type AnalysisServiceRow = typeof analysisServices.$inferSelect;
export type NewAnalysisServiceRow = typeof analysisServices.$inferInsert;

/** A live offer with what a page shows of its provider. */
export interface OfferRow {
  serviceId: string;
  providerId: string;
  providerName: string;
  providerSpecialty: string | null;
  rating: number | null;
  priceCents: number;
  isConnected: boolean;
}

/** A service, provider and price a purchase may be made for. */
export interface LiveOffer {
  service: AnalysisServiceRow;
  providerId: string;
  providerName: string;
  priceCents: number;
}

/** The analysis service catalogue and its offers. */
export function createServicesRepository(db: Db) {
  const liveOffer = and(
    isNull(serviceOffers.retiredAt),
    isNull(analysisServices.retiredAt),
    eq(providers.listed, 'directory'),
    isNull(providers.retiredAt),
  );

  return {
    async countServices(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(analysisServices);
      return Number(row?.n ?? 0);
    },

    /** Directory provider ids by normalised email (for seeding offers). */
    async directoryIdsByEmail(emails: string[]): Promise<Map<string, string>> {
      if (emails.length === 0) return new Map();
      const rows = await db
        .select({ id: providers.id, email: providers.emailNormalized })
        .from(providers)
        .where(and(eq(providers.listed, 'directory'), inArray(providers.emailNormalized, emails)));
      return new Map(rows.map((r) => [r.email, r.id]));
    },

    /**
     * Inserts services whose name is new, with their offers, in one transaction; several processes
     * starting at once insert each once. Returns how many services were new.
     */
    async insertCatalogue(
      entries: Array<{
        service: NewAnalysisServiceRow;
        offers: Array<{ providerId: string; priceCents: number }>;
      }>,
    ): Promise<number> {
      return db.transaction(async (tx) => {
        let created = 0;
        for (const entry of entries) {
          const [row] = await tx
            .insert(analysisServices)
            .values(entry.service)
            .onConflictDoNothing({ target: analysisServices.name })
            .returning({ id: analysisServices.id });
          if (!row) continue;
          created++;
          if (entry.offers.length > 0)
            await tx
              .insert(serviceOffers)
              .values(entry.offers.map((o) => ({ serviceId: row.id, ...o })))
              .onConflictDoNothing();
        }
        return created;
      });
    },

    /** Live services in catalogue order. */
    async listLiveServices(): Promise<AnalysisServiceRow[]> {
      return db
        .select()
        .from(analysisServices)
        .where(isNull(analysisServices.retiredAt))
        .orderBy(asc(analysisServices.sortOrder), asc(analysisServices.name));
    },

    /** Live offers of live services by live directory providers, marked when in the user's network. */
    async listLiveOffers(userId: string): Promise<OfferRow[]> {
      return db
        .select({
          serviceId: serviceOffers.serviceId,
          providerId: serviceOffers.providerId,
          providerName: providers.name,
          providerSpecialty: providers.specialty,
          rating: providers.rating,
          priceCents: serviceOffers.priceCents,
          isConnected: sql<boolean>`exists (select 1 from ${userProviders} where ${userProviders.userId} = ${userId} and ${userProviders.providerId} = ${providers.id})`,
        })
        .from(serviceOffers)
        .innerJoin(analysisServices, eq(analysisServices.id, serviceOffers.serviceId))
        .innerJoin(providers, eq(providers.id, serviceOffers.providerId))
        .where(liveOffer)
        .orderBy(asc(serviceOffers.priceCents), asc(providers.name));
    },

    /** The live offer of this provider for this service, if any. */
    async findLiveOffer(serviceId: string, providerId: string): Promise<LiveOffer | undefined> {
      const [row] = await db
        .select({
          service: analysisServices,
          providerId: providers.id,
          providerName: providers.name,
          priceCents: serviceOffers.priceCents,
        })
        .from(serviceOffers)
        .innerJoin(analysisServices, eq(analysisServices.id, serviceOffers.serviceId))
        .innerJoin(providers, eq(providers.id, serviceOffers.providerId))
        .where(
          and(eq(serviceOffers.serviceId, serviceId), eq(serviceOffers.providerId, providerId), liveOffer),
        )
        .limit(1);
      return row;
    },
  };
}
export type ServicesRepository = ReturnType<typeof createServicesRepository>;
