// modules/ratings: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createRatingsRepository } from './ratings.repository';
export { ratingsRoutes } from './ratings.routes';
export { createRatingsService, type RatingsService } from './ratings.service';
export { createRatingsModule } from './ratings.module';
