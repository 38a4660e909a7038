import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  analysisServices,
  providerFulfillers,
  providers,
  sellableOffers,
  serviceOffers,
} from '../../db/schema/index';
import type { AnalysisServiceRow, NewAnalysisServiceRow } from './services.repository';

export type ServiceOfferRow = typeof serviceOffers.$inferSelect;

/** An offer with its provider's name and whether the directory entry itself is retired. */
export interface AdminOfferRow extends ServiceOfferRow {
  providerName: string;
  providerRetiredAt: Date | null;
  providerKind: 'professional' | 'organisation' | 'automated';
  providerDemo: boolean;
  /** Listed in GET /api/services right now (the sellable_offers view). */
  sellable: boolean;
  /** The service's turnaround and modalities, which an offer without its own takes. */
  serviceTypicalTime: string;
  serviceModalities: string[];
}

type ServiceColumns = Omit<NewAnalysisServiceRow, 'id' | 'createdAt'>;

/** The catalogue's services as admins curate them. */
function createCatalogueServicesRepository(db: Db) {
  return {
    /** Live services first, in catalogue order, then retired ones. */
    async listServices(): Promise<AnalysisServiceRow[]> {
      return db
        .select()
        .from(analysisServices)
        .orderBy(
          sql`${analysisServices.retiredAt} is not null`,
          asc(analysisServices.sortOrder),
          asc(analysisServices.name),
        );
    },

    async findService(id: string): Promise<AnalysisServiceRow | undefined> {
      const [row] = await db.select().from(analysisServices).where(eq(analysisServices.id, id)).limit(1);
      return row;
    },

    async findServiceByName(name: string): Promise<AnalysisServiceRow | undefined> {
      const [row] = await db
        .select()
        .from(analysisServices)
        .where(sql`lower(${analysisServices.name}) = lower(${name})`)
        .limit(1);
      return row;
    },

    /** The next position at the end of the catalogue. */
    async nextSortOrder(): Promise<number> {
      const [row] = await db
        .select({ max: sql<number | null>`max(${analysisServices.sortOrder})` })
        .from(analysisServices);
      return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
    },

    /** Undefined when another service took the name meanwhile (unique name). */
    async insertService(values: NewAnalysisServiceRow): Promise<AnalysisServiceRow | undefined> {
      const [row] = await db
        .insert(analysisServices)
        .values(values)
        .onConflictDoNothing({ target: analysisServices.name })
        .returning();
      return row;
    },

    async updateService(id: string, values: Partial<ServiceColumns>): Promise<void> {
      await db.update(analysisServices).set(values).where(eq(analysisServices.id, id));
    },
  };
}

/** Providers' offers of the catalogue's services, as admins set them. */
function createCatalogueOffersRepository(db: Db) {
  return {
    /** Every offer with its provider; pass a service id to narrow to one service. */
    async listOffers(serviceId?: string): Promise<AdminOfferRow[]> {
      const rows = await db
        .select({
          offer: serviceOffers,
          providerName: providers.name,
          providerRetiredAt: providers.retiredAt,
          providerKind: providers.kind,
          providerDemo: providers.demo,
          sellable: sql<boolean>`exists (select 1 from ${sellableOffers} so where so.service_id = ${serviceOffers.serviceId} and so.provider_id = ${serviceOffers.providerId})`,
          serviceTypicalTime: analysisServices.typicalTime,
          serviceModalities: analysisServices.supportedModalities,
        })
        .from(serviceOffers)
        .innerJoin(providers, eq(providers.id, serviceOffers.providerId))
        .innerJoin(analysisServices, eq(analysisServices.id, serviceOffers.serviceId))
        .where(serviceId ? eq(serviceOffers.serviceId, serviceId) : undefined)
        .orderBy(
          sql`${serviceOffers.retiredAt} is not null`,
          asc(serviceOffers.priceCents),
          asc(providers.name),
        );
      return rows.map(({ offer, ...rest }) => ({ ...offer, ...rest, sellable: Boolean(rest.sellable) }));
    },

    async findOffer(serviceId: string, providerId: string): Promise<ServiceOfferRow | undefined> {
      const [row] = await db
        .select()
        .from(serviceOffers)
        .where(and(eq(serviceOffers.serviceId, serviceId), eq(serviceOffers.providerId, providerId)))
        .limit(1);
      return row;
    },

    /** A directory provider (not a user's own contact) by id, retired or not. */
    async findDirectoryProvider(id: string): Promise<
      | {
          id: string;
          name: string;
          kind: 'professional' | 'organisation' | 'automated';
          retiredAt: Date | null;
          automates: boolean;
          reads: boolean;
        }
      | undefined
    > {
      const [row] = await db
        .select({
          id: providers.id,
          name: providers.name,
          kind: providers.kind,
          retiredAt: providers.retiredAt,
          automates: providerFulfillers.automates,
          reads: providerFulfillers.reads,
        })
        .from(providers)
        .innerJoin(providerFulfillers, eq(providerFulfillers.providerId, providers.id))
        .where(and(eq(providers.id, id), eq(providers.listed, 'directory')))
        .limit(1);
      return row;
    },

    /** Adds an offer, or brings a retired one back at the given price. */
    async upsertOffer(serviceId: string, providerId: string, priceCents: number, at: Date): Promise<void> {
      await db
        .insert(serviceOffers)
        .values({ serviceId, providerId, priceCents, createdAt: at, updatedAt: at })
        .onConflictDoUpdate({
          target: [serviceOffers.serviceId, serviceOffers.providerId],
          set: { priceCents, retiredAt: null, retiredBy: null, updatedAt: at },
        });
    },

    async updateOffer(
      serviceId: string,
      providerId: string,
      values: Partial<
        Pick<
          ServiceOfferRow,
          'priceCents' | 'turnaround' | 'modalities' | 'retiredAt' | 'retiredBy' | 'updatedAt'
        >
      >,
    ): Promise<void> {
      await db
        .update(serviceOffers)
        .set(values)
        .where(and(eq(serviceOffers.serviceId, serviceId), eq(serviceOffers.providerId, providerId)));
    },
  };
}

/** Admin → Services: every service and offer, retired ones included. */
export function createCatalogueAdminRepository(db: Db) {
  return {
    ...createCatalogueServicesRepository(db),
    ...createCatalogueOffersRepository(db),
  };
}
export type CatalogueAdminRepository = ReturnType<typeof createCatalogueAdminRepository>;
