// modules/jobs: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { jobsRoutes } from './jobs.routes';
export { createJobsService, type JobsService } from './jobs.service';
export { createJobsModule } from './jobs.module';
