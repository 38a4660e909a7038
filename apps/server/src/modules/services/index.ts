// modules/services: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createCatalogueAdminRepository } from './catalogue-admin.repository';
export { catalogueAdminRoutes } from './catalogue-admin.routes';
export { type CatalogueAdminService, createCatalogueAdminService } from './catalogue-admin.service';
export { professionalOffersRoutes } from './professional-offers.routes';
export { createServicesRepository } from './services.repository';
export { servicesRoutes } from './services.routes';
export { createServicesService, type ServicesService } from './services.service';
export { createServicesModule } from './services.module';
