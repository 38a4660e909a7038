import {
  priceToCents,
  type AdminOffer,
  type AdminService,
  type OfferInput,
  type OfferPrice,
  type ServiceInput,
} from '@mi/contracts/catalogue-admin';
import { AppError } from '../../http/app-error';
import { adminChanges, type RecentAdmin, type RecentSignInRule } from '../admin';
import { actorAudit, type AuditRecorder } from '../audit';
import type { RequestMeta } from '../../http/request-meta';
import type { UserRow } from '../accounts';
import type { AdminOfferRow, CatalogueAdminRepository } from './catalogue-admin.repository';
import type { AnalysisServiceRow } from './services.repository';
import { toDollars } from './services.service';

/** Who makes a change (the audit trail names them). */
type Actor = Pick<UserRow, 'id' | 'role'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SERVICE_NOT_FOUND = 'Service not found.';
export const OFFER_NOT_FOUND = 'This provider does not offer this service.';
const NAME_TAKEN = 'Another service already has this name.';

function toAdminOffer(o: AdminOfferRow): AdminOffer {
  return {
    providerId: o.providerId,
    providerName: o.providerName,
    providerRetired: o.providerRetiredAt !== null,
    providerKind: o.providerKind,
    price: toDollars(o.priceCents),
    turnaround: o.turnaround ?? o.serviceTypicalTime,
    modalities: o.modalities ?? o.serviceModalities,
    sellable: o.sellable,
    retiredAt: o.retiredAt?.toISOString() ?? null,
    retiredBy: o.retiredBy,
    demo: o.providerDemo,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

function toAdminService(s: AnalysisServiceRow, offers: AdminOfferRow[]): AdminService {
  return {
    id: s.id,
    name: s.name,
    scope: s.scope,
    description: s.description,
    typicalTime: s.typicalTime,
    requiredData: s.requiredData,
    type: s.type,
    supportedModalities: s.supportedModalities,
    defaultPrice: toDollars(s.defaultPriceCents),
    retiredAt: s.retiredAt?.toISOString() ?? null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    offers: offers.filter((o) => o.serviceId === s.id).map(toAdminOffer),
  };
}

/** The columns of a service from the admin form: texts trimmed, empty list items dropped. */
function toColumns(input: ServiceInput) {
  const list = (items: string[]) => [...new Set(items.map((i) => i.trim()).filter(Boolean))];
  return {
    name: input.name.trim(),
    scope: input.scope.trim(),
    description: input.description.trim(),
    typicalTime: input.typicalTime.trim(),
    requiredData: list(input.requiredData),
    type: input.type,
    supportedModalities: list(input.supportedModalities),
  };
}

export interface CatalogueAdminDeps {
  repo: CatalogueAdminRepository;
  audit: AuditRecorder;
  /** The recent sign-in rule of every admin change (modules/admin/recent-sign-in.ts). */
  requireRecentSignIn: RecentSignInRule;
  now: () => Date;
}

/** Audit records, and services and offers found as admins change them. */
function createCatalogueAdminTools(deps: CatalogueAdminDeps) {
  const { repo } = deps;

  const record = actorAudit(deps.audit);
  const audit = (
    admin: Actor,
    action: string,
    serviceId: string,
    meta: RequestMeta,
    details?: Record<string, unknown>,
  ) => record(admin, action, { type: 'service', id: serviceId }, meta, details);

  async function requireService(id: string): Promise<AnalysisServiceRow> {
    const found = UUID.test(id) ? await repo.findService(id) : undefined;
    if (!found) throw new AppError('NOT_FOUND', SERVICE_NOT_FOUND);
    return found;
  }

  async function view(id: string): Promise<AdminService> {
    const service = await requireService(id);
    return toAdminService(service, await repo.listOffers(id));
  }

  async function requireFreeName(name: string, exceptId?: string): Promise<void> {
    const other = await repo.findServiceByName(name.trim());
    if (other && other.id !== exceptId) throw new AppError('CONFLICT', NAME_TAKEN);
  }

  async function requireOffer(serviceId: string, providerId: string) {
    await requireService(serviceId);
    const offer = UUID.test(providerId) ? await repo.findOffer(serviceId, providerId) : undefined;
    if (!offer) throw new AppError('NOT_FOUND', OFFER_NOT_FOUND);
    return offer;
  }

  return { repo, record, audit, requireService, view, requireFreeName, requireOffer };
}
type CatalogueAdminTools = ReturnType<typeof createCatalogueAdminTools>;

/** The catalogue's services: listed, made, changed, retired and restored. */
function createCatalogueServicesAdmin(deps: CatalogueAdminDeps, tools: CatalogueAdminTools) {
  const { repo, audit, requireService, view, requireFreeName } = tools;
  return {
    async list(): Promise<AdminService[]> {
      const [services, offers] = await Promise.all([repo.listServices(), repo.listOffers()]);
      return services.map((s) => toAdminService(s, offers));
    },

    // Every change below is an admin change: a recent sign-in first (modules/admin, adminChanges).
    ...adminChanges(deps.requireRecentSignIn, 'service.admin_change', {
      /** A new service starts without offers, so it is not shown to users until one is added. */
      async create(admin: RecentAdmin, input: ServiceInput, meta: RequestMeta): Promise<AdminService> {
        await requireFreeName(input.name);
        const at = deps.now();
        const created = await repo.insertService({
          ...toColumns(input),
          sortOrder: await repo.nextSortOrder(),
          createdAt: at,
          updatedAt: at,
        });
        // Another admin saved the same name a moment ago.
        if (!created) throw new AppError('CONFLICT', NAME_TAKEN);
        await audit(admin, 'service.create', created.id, meta, { name: created.name });
        return view(created.id);
      },

      async update(
        admin: RecentAdmin,
        id: string,
        input: ServiceInput,
        meta: RequestMeta,
      ): Promise<AdminService> {
        const before = await requireService(id);
        await requireFreeName(input.name, id);
        const columns = toColumns(input);
        try {
          await repo.updateService(id, { ...columns, updatedAt: deps.now() });
        } catch (err) {
          // The unique name index: another admin renamed a service to this name meanwhile.
          if ((await repo.findServiceByName(columns.name))?.id !== id)
            throw new AppError('CONFLICT', NAME_TAKEN);
          throw err;
        }
        const changed = (Object.keys(columns) as Array<keyof typeof columns>).filter(
          (k) => JSON.stringify(before[k]) !== JSON.stringify(columns[k]),
        );
        await audit(admin, 'service.update', id, meta, { fields: changed });
        return view(id);
      },

      /** No longer offered; orders already made for it go on as before. */
      async retire(admin: RecentAdmin, id: string, meta: RequestMeta): Promise<AdminService> {
        const found = await requireService(id);
        if (!found.retiredAt) {
          const at = deps.now();
          await repo.updateService(id, { retiredAt: at, updatedAt: at });
          await audit(admin, 'service.retire', id, meta);
        }
        return view(id);
      },

      async restore(admin: RecentAdmin, id: string, meta: RequestMeta): Promise<AdminService> {
        const found = await requireService(id);
        if (found.retiredAt) {
          await repo.updateService(id, { retiredAt: null, updatedAt: deps.now() });
          await audit(admin, 'service.restore', id, meta);
        }
        return view(id);
      },
    }),
  };
}

/** A provider's offer of a service: added (or restored with a new price), repriced. */
function createOfferPricingAdmin(deps: CatalogueAdminDeps, tools: CatalogueAdminTools) {
  const { repo, audit, requireService, view, requireOffer } = tools;
  return {
    // Every change below is an admin change: a recent sign-in first (modules/admin, adminChanges).
    ...adminChanges(deps.requireRecentSignIn, 'service.admin_change', {
      /**
       * A directory provider offers the service at a price. Adding a retired offer again brings it
       * back at the new price; a live one is a conflict (re-price it instead).
       */
      async addOffer(
        admin: RecentAdmin,
        id: string,
        input: OfferInput,
        meta: RequestMeta,
      ): Promise<AdminService> {
        await requireService(id);
        const provider = await repo.findDirectoryProvider(input.providerId);
        if (!provider) throw new AppError('UNPROCESSABLE', 'Choose a provider of the directory.');
        if (provider.retiredAt)
          throw new AppError('UNPROCESSABLE', 'This provider is retired. Restore it under Providers first.');
        if (provider.kind === 'professional')
          throw new AppError('UNPROCESSABLE', 'A professional sets their own offers from their workspace.');
        // Nothing is sold that nobody can deliver (the provider_fulfillers view).
        const service = await requireService(id);
        if (service.type === 'AI' ? !provider.automates : !provider.reads)
          throw new AppError(
            'UNPROCESSABLE',
            service.type === 'AI'
              ? `${provider.name} cannot deliver an automated service: give it a vendor webhook first.`
              : `${provider.name} has no one to read this service: link a verified professional who has not paused their offers first.`,
          );
        const existing = await repo.findOffer(id, provider.id);
        if (existing && !existing.retiredAt)
          throw new AppError(
            'CONFLICT',
            `${provider.name} already offers this service. Change its price instead.`,
          );
        const priceCents = priceToCents(input.price);
        await repo.upsertOffer(id, provider.id, priceCents, deps.now());
        await audit(admin, existing ? 'service.offer_restore' : 'service.offer_add', id, meta, {
          providerId: provider.id,
          priceCents,
        });
        return view(id);
      },

      /** New terms for orders made from now on (price, and optionally turnaround and modalities); existing orders keep theirs. */
      async repriceOffer(
        admin: RecentAdmin,
        id: string,
        providerId: string,
        terms: OfferPrice,
        meta: RequestMeta,
      ): Promise<AdminService> {
        const offer = await requireOffer(id, providerId);
        const priceCents = priceToCents(terms.price);
        const changes = {
          ...(offer.priceCents !== priceCents ? { priceCents } : {}),
          ...(terms.turnaround !== undefined && terms.turnaround !== offer.turnaround
            ? { turnaround: terms.turnaround }
            : {}),
          ...(terms.modalities !== undefined ? { modalities: [...new Set(terms.modalities)] } : {}),
        };
        if (Object.keys(changes).length > 0) {
          await repo.updateOffer(id, offer.providerId, { ...changes, updatedAt: deps.now() });
          await audit(admin, 'service.offer_reprice', id, meta, {
            providerId: offer.providerId,
            from: offer.priceCents,
            to: priceCents,
            fields: Object.keys(changes),
          });
        }
        return view(id);
      },
    }),
  };
}

/** A provider's offer of a service: retired, restored. */
function createOfferRetirementAdmin(deps: CatalogueAdminDeps, tools: CatalogueAdminTools) {
  const { repo, audit, view, requireOffer } = tools;
  return {
    // Every change below is an admin change: a recent sign-in first (modules/admin, adminChanges).
    ...adminChanges(deps.requireRecentSignIn, 'service.admin_change', {
      /** Brings back an offer an admin retired: it is sold again while someone can deliver it. */
      async restoreOffer(
        admin: RecentAdmin,
        id: string,
        providerId: string,
        meta: RequestMeta,
      ): Promise<AdminService> {
        const offer = await requireOffer(id, providerId);
        // A reading its professional chose to stop is theirs to offer again, not an admin's.
        if (offer.retiredBy === 'provider')
          throw new AppError(
            'CONFLICT',
            'The professional withdrew this offer; only they can offer it again.',
          );
        if (offer.retiredAt) {
          await repo.updateOffer(id, offer.providerId, {
            retiredAt: null,
            retiredBy: null,
            updatedAt: deps.now(),
          });
          await audit(admin, 'service.offer_restore', id, meta, { providerId: offer.providerId });
        }
        return view(id);
      },

      async retireOffer(
        admin: RecentAdmin,
        id: string,
        providerId: string,
        meta: RequestMeta,
      ): Promise<AdminService> {
        const offer = await requireOffer(id, providerId);
        if (!offer.retiredAt) {
          const at = deps.now();
          await repo.updateOffer(id, offer.providerId, { retiredAt: at, retiredBy: 'admin', updatedAt: at });
          await audit(admin, 'service.offer_retire', id, meta, { providerId: offer.providerId });
        }
        return view(id);
      },
    }),
  };
}

/**
 * Admin → Services: create, edit, retire and restore analysis services, and add, re-price and
 * retire the providers' offers. Nothing is deleted: orders point at services and providers, and
 * each order keeps the cost it was made at, so a re-price only reaches orders made afterwards.
 * Retired services and offers leave GET /api/services (services.repository.ts, `liveOffer`).
 */
export function createCatalogueAdminService(deps: CatalogueAdminDeps) {
  const tools = createCatalogueAdminTools(deps);
  return {
    ...createCatalogueServicesAdmin(deps, tools),
    ...createOfferPricingAdmin(deps, tools),
    ...createOfferRetirementAdmin(deps, tools),
  };
}
export type CatalogueAdminService = ReturnType<typeof createCatalogueAdminService>;
