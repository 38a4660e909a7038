import type { Service } from '@mi/contracts/orders';
import { normalizeEmail } from '@mi/contracts/rules';
import { SERVICE_CATALOGUE } from './service-catalogue';
import type { LiveOffer, ServicesRepository } from './services.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Cents to dollars as the API shows prices (49.99). */
export const toDollars = (cents: number) => Math.round(cents) / 100;

/**
 * The analysis service catalogue (GET /api/services) and the one place an offer's price is read
 * from: orders and payments ask `findOffer`, never the request.
 */
export function createServicesService(deps: { repo: ServicesRepository }) {
  const { repo } = deps;
  return {
    /**
     * First start (and any start with an empty catalogue): seeds the services and their offers.
     * Runs after the provider directory is seeded, whose entries the offers name.
     */
    async ensureCatalogue(): Promise<number> {
      if ((await repo.countServices()) > 0) return 0;
      const emails = SERVICE_CATALOGUE.flatMap((s) => s.offers.map((o) => normalizeEmail(o.providerEmail)));
      const ids = await repo.directoryIdsByEmail([...new Set(emails)]);
      return repo.insertCatalogue(
        SERVICE_CATALOGUE.map((s, i) => ({
          service: {
            name: s.name,
            scope: s.scope,
            description: s.description,
            typicalTime: s.typicalTime,
            requiredData: s.requiredData,
            type: s.type,
            supportedModalities: s.supportedModalities,
            sortOrder: i,
          },
          offers: s.offers.flatMap((o) => {
            const providerId = ids.get(normalizeEmail(o.providerEmail));
            return providerId ? [{ providerId, priceCents: o.priceCents }] : [];
          }),
        })),
      );
    },

    /** Live services with their live offers (cheapest first); `isConnected` is the user's network. */
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
              rating: o.rating ?? 0,
              isConnected: Boolean(o.isConnected),
              price: toDollars(o.priceCents),
            })),
        }))
        .filter((s) => s.providers.length > 0);
    },

    /** The live offer of a provider for a service, or undefined (retired, unknown, malformed id). */
    async findOffer(serviceId: string, providerId: string): Promise<LiveOffer | undefined> {
      if (!UUID.test(serviceId) || !UUID.test(providerId)) return undefined;
      return repo.findLiveOffer(serviceId, providerId);
    },
  };
}
export type ServicesService = ReturnType<typeof createServicesService>;
