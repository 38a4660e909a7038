// modules/vendors: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { vendorsAdminRoutes } from './vendors-admin.routes';
export { createVendorsRepository } from './vendors.repository';
export { vendorsRoutes } from './vendors.routes';
export { createVendorsService, type VendorsService } from './vendors.service';
export { createVendorsModule } from './vendors.module';
