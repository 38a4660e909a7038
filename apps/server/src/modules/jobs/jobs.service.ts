import { jobNameSchema, type PendingJobs } from '@mi/contracts/studies';
import type { JobQueue } from '../../jobs/queue';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { StudiesService } from '../studies';

/** The jobs a user may see in their list: their studies' processing and preparation. */
const USER_JOBS = jobNameSchema.options;

interface Deps {
  queue: Pick<JobQueue, 'pendingFor'>;
  /** Only the user's own list: anyone else's looks missing. */
  studies: Pick<StudiesService, 'requireSelf'>;
}

/** A user's pending study jobs (queued, retrying, running), as the studies page polls them. */
export function createJobsService(deps: Deps) {
  return {
    async pending(auth: AuthenticatedSession, userId: string, meta: RequestMeta): Promise<PendingJobs> {
      await deps.studies.requireSelf(auth, userId, 'jobs.list', meta);
      const jobs = (await deps.queue.pendingFor(auth.user.id, USER_JOBS)).map((job) => ({
        id: job.id,
        name: jobNameSchema.parse(job.name),
        state: job.state,
        studyId: job.data.studyId == null ? null : String(job.data.studyId),
        createdAt: job.createdOn.toISOString(),
      }));
      return { count: jobs.length, jobs };
    },
  };
}
export type JobsService = ReturnType<typeof createJobsService>;
