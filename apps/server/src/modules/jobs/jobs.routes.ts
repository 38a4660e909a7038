import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { pendingJobsSchema, type PendingJobs } from '@mi/contracts/studies';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { JobsService } from './jobs.service';

/** `GET /api/jobs/pending/:userId`: the caller's queued, retrying and running study jobs. */
export function jobsRoutes(jobs: JobsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/jobs/pending/:userId',
      {
        schema: {
          tags: ['studies'],
          summary: "The user's pending study jobs",
          params: z.object({ userId: z.string().min(1).max(200) }),
          response: { 200: pendingJobsSchema, 401: errorBodySchema, 404: errorBodySchema },
        },
      },
      async (req): Promise<PendingJobs> =>
        jobs.pending(requireUser(req), req.params.userId, requestMeta(req)),
    );
  };
}
