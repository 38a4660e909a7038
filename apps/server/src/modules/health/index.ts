// modules/health: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { healthRoutes } from './health.routes';
export { createHealthService, type HealthService } from './health.service';
export { createHealthModule } from './health.module';
