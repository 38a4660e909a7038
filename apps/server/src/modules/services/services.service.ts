import { priceToCents } from '@mi/contracts/catalogue-admin';
import type { MyOffer, OfferSettings } from '@mi/contracts/directory';
import type { Service } from '@mi/contracts/orders';
import { AppError } from '../../http/app-error';
import { actorAudit, type AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import { SERVICE_CATALOGUE } from './service-catalogue';
import type {
  AnalysisServiceRow,
  LiveOffer,
  ServiceOfferRow,
  ServicesRepository,
} from './services.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const OFFER_SERVICE_NOT_FOUND = 'Service not found.';
export const OFFER_RETIRED_BY_ADMIN =
  'An admin retired this offer. Contact the platform’s administrators to offer it again.';

/** Cents to dollars as the API shows prices (49.99). */
export const toDollars = (cents: number) => Math.round(cents) / 100;

/** Services a professional may offer: a person reads them (an automated service is the platform's or a vendor's). */
const readByPeople = (s: AnalysisServiceRow) => s.type !== 'AI';

function toMyOffer(s: AnalysisServiceRow, o: ServiceOfferRow | undefined): MyOffer {
  return {
    serviceId: s.id,
    serviceName: s.name,
    serviceType: s.type,
    typicalTime: s.typicalTime,
    supportedModalities: s.supportedModalities,
    defaultPrice: toDollars(s.defaultPriceCents),
    offer: o
      ? {
          price: toDollars(o.priceCents),
          turnaround: o.turnaround ?? s.typicalTime,
          modalities: o.modalities ?? s.supportedModalities,
          status: !o.retiredAt ? 'live' : o.retiredBy === 'admin' ? 'retired' : 'withdrawn',
          updatedAt: o.updatedAt.toISOString(),
        }
      : null,
  };
}

export interface ServicesDeps {
  repo: ServicesRepository;
  audit: AuditRecorder;
  /** The signed-in professional's own directory entry (modules/providers); the one 404 for anyone else. */
  professionalProviderId: (userId: string) => Promise<string>;
  now: () => Date;
}

/** Audit records, and a service a professional may offer. */
function createServicesTools(deps: ServicesDeps) {
  const { repo } = deps;
  const audit = actorAudit(deps.audit);

  async function requireOfferable(serviceId: string): Promise<AnalysisServiceRow> {
    const service = UUID.test(serviceId)
      ? (await repo.listLiveServices()).find((s) => s.id === serviceId)
      : undefined;
    if (!service || !readByPeople(service)) throw new AppError('NOT_FOUND', OFFER_SERVICE_NOT_FOUND);
    return service;
  }

  return { repo, audit, requireOfferable };
}
type ServicesTools = ReturnType<typeof createServicesTools>;

/** The catalogue users buy from: its first entries, what is offered, one offer. */
function createCatalogue(deps: ServicesDeps, tools: ServicesTools) {
  const { repo } = tools;
  return {
    /**
     * Every start: the product's services (new names only) and the platform's own automated
     * analysis offering the automated ones at their list price. Safe for several processes at once.
     */
    async ensureCatalogue(automatedProviderId: string): Promise<number> {
      const created = await repo.insertServices(
        SERVICE_CATALOGUE.map((s, i) => ({
          name: s.name,
          scope: s.scope,
          description: s.description,
          typicalTime: s.typicalTime,
          requiredData: s.requiredData,
          type: s.type,
          supportedModalities: s.supportedModalities,
          defaultPriceCents: s.defaultPriceCents,
          sortOrder: i,
        })),
      );
      const automated = SERVICE_CATALOGUE.filter((s) => s.type === 'AI').map((s) => s.name);
      const services = await repo.findServicesByName(automated);
      await repo.insertOffers(
        services.map((s) => ({
          serviceId: s.id,
          providerId: automatedProviderId,
          priceCents: s.defaultPriceCents,
        })),
      );
      return created;
    },

    /** Live services with their sellable offers (cheapest first); `isConnected` is the user's network. */
    async list(userId: string): Promise<Service[]> {
      const [services, offers] = await Promise.all([repo.listLiveServices(), repo.listLiveOffers(userId)]);
      return services
        .map((s) => ({
          id: s.id,
          name: s.name,
          scope: s.scope,
          description: s.description,
          typicalTime: s.typicalTime,
          requiredData: s.requiredData,
          type: s.type,
          supportedModalities: s.supportedModalities,
          providers: offers
            .filter((o) => o.serviceId === s.id)
            .map((o) => ({
              _id: o.providerId,
              id: o.providerId,
              name: o.providerName,
              specialty: o.providerSpecialty,
              rating: o.ratingMean,
              ratingCount: o.ratingCount,
              kind: o.providerKind,
              turnaround: o.turnaround,
              modalities: o.modalities,
              demo: o.providerDemo,
              isConnected: Boolean(o.isConnected),
              price: toDollars(o.priceCents),
            })),
        }))
        .filter((s) => s.providers.length > 0);
    },

    /** The sellable offer of a provider for a service, or undefined (nobody to deliver it, retired, unknown, malformed id). */
    async findOffer(serviceId: string, providerId: string): Promise<LiveOffer | undefined> {
      if (!UUID.test(serviceId) || !UUID.test(providerId)) return undefined;
      return repo.findLiveOffer(serviceId, providerId);
    },
  };
}

/** A professional's own offers of the catalogue's services. */
function createOwnOffers(deps: ServicesDeps, tools: ServicesTools) {
  const { repo, audit, requireOfferable } = tools;
  return {
    // ------------------------------------------------------------ a professional's own offers

    professional: {
      /** Every service a professional may offer, with their offer of it. */
      async list(userId: string): Promise<MyOffer[]> {
        const providerId = await deps.professionalProviderId(userId);
        const [services, offers] = await Promise.all([
          repo.listLiveServices(),
          repo.listOffersOf(providerId),
        ]);
        return services.filter(readByPeople).map((s) =>
          toMyOffer(
            s,
            offers.find((o) => o.serviceId === s.id),
          ),
        );
      },

      /** Offers a service on these terms, or changes them (new orders only). */
      async save(
        user: { id: string; role: string | null },
        serviceId: string,
        settings: OfferSettings,
        meta: RequestMeta,
      ): Promise<MyOffer> {
        const providerId = await deps.professionalProviderId(user.id);
        const service = await requireOfferable(serviceId);
        const existing = await repo.findOfferOf(service.id, providerId);
        if (existing?.retiredBy === 'admin') throw new AppError('CONFLICT', OFFER_RETIRED_BY_ADMIN);
        const unknown = settings.modalities.filter((m) => !service.supportedModalities.includes(m));
        if (unknown.length > 0)
          throw new AppError(
            'UNPROCESSABLE',
            `${service.name} reads ${service.supportedModalities.join(', ')}; ${unknown.join(', ')} cannot be offered.`,
          );
        const priceCents = priceToCents(settings.price);
        await repo.saveOffer({
          serviceId: service.id,
          providerId,
          priceCents,
          turnaround: settings.turnaround.trim(),
          modalities: [...new Set(settings.modalities)],
          at: deps.now(),
        });
        await audit(
          user,
          existing ? 'service.offer_update' : 'service.offer_add',
          { type: 'service', id: service.id },
          meta,
          {
            providerId,
            priceCents,
          },
        );
        return toMyOffer(service, await repo.findOfferOf(service.id, providerId));
      },

      /** Stops offering a service (orders already paid go on). */
      async withdraw(
        user: { id: string; role: string | null },
        serviceId: string,
        meta: RequestMeta,
      ): Promise<MyOffer> {
        const providerId = await deps.professionalProviderId(user.id);
        const service = await requireOfferable(serviceId);
        const existing = await repo.findOfferOf(service.id, providerId);
        if (existing && !existing.retiredAt) {
          await repo.withdrawOffer(service.id, providerId, deps.now());
          await audit(user, 'service.offer_withdraw', { type: 'service', id: service.id }, meta, {
            providerId,
          });
        }
        return toMyOffer(service, await repo.findOfferOf(service.id, providerId));
      },
    },
  };
}

/**
 * The analysis service catalogue (GET /api/services), professionals' own offers, and the one place
 * an offer's price is read from: orders and payments ask `findOffer`, never the request. Only
 * sellable offers (someone can deliver them, services.repository.ts) are listed or sold.
 */
export function createServicesService(deps: ServicesDeps) {
  const tools = createServicesTools(deps);
  return {
    ...createCatalogue(deps, tools),
    ...createOwnOffers(deps, tools),
  };
}
export type ServicesService = ReturnType<typeof createServicesService>;
