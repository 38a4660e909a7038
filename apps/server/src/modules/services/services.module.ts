import { createCatalogueAdminRepository } from './catalogue-admin.repository';
import { catalogueAdminRoutes } from './catalogue-admin.routes';
import { createCatalogueAdminService } from './catalogue-admin.service';
import { professionalOffersRoutes } from './professional-offers.routes';
import { createServicesRepository } from './services.repository';
import { servicesRoutes } from './services.routes';
import { createServicesService } from './services.service';

type CatalogueDeps = Parameters<typeof createServicesService>[0];
type AdminDeps = Parameters<typeof createCatalogueAdminService>[0];

export interface ServicesModuleDeps
  extends Pick<CatalogueDeps, 'audit' | 'now'>, Pick<AdminDeps, 'requireRecentSignIn'> {
  db: Parameters<typeof createServicesRepository>[0];
  /** The provider directory (modules/providers): a professional's own provider. */
  providers: { professional: { providerId: CatalogueDeps['professionalProviderId'] } };
}

/** The analysis service catalogue (seeded by seed.ts), professionals' offers and Admin → Services. */
export function createServicesModule({ db, audit, requireRecentSignIn, now, providers }: ServicesModuleDeps) {
  const analysisServices = createServicesService({
    repo: createServicesRepository(db),
    audit,
    professionalProviderId: (userId) => providers.professional.providerId(userId),
    now,
  });
  const catalogueAdmin = createCatalogueAdminService({
    repo: createCatalogueAdminRepository(db),
    audit,
    requireRecentSignIn,
    now,
  });
  return {
    analysisServices,
    catalogueAdmin,
    routes: () => [
      servicesRoutes(analysisServices),
      professionalOffersRoutes(analysisServices),
      catalogueAdminRoutes(catalogueAdmin),
    ],
  };
}
