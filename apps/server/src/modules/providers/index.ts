// modules/providers: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { professionalProfileRoutes } from './professional-profile.routes';
export { providersAdminRoutes } from './providers-admin.routes';
export { createProvidersRepository } from './providers.repository';
export { providersRoutes } from './providers.routes';
export { createProvidersService, type ProvidersService } from './providers.service';
export { createProvidersModule } from './providers.module';
