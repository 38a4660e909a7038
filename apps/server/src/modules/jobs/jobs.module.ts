import { jobsRoutes } from './jobs.routes';
import { createJobsService } from './jobs.service';

export type JobsModuleDeps = Parameters<typeof createJobsService>[0];

/** A user's pending study jobs. */
export function createJobsModule({ queue, studies }: JobsModuleDeps) {
  const jobsService = createJobsService({ queue, studies });
  return { jobsService, routes: () => [jobsRoutes(jobsService)] };
}
