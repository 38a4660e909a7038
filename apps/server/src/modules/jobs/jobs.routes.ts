import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { jobNameSchema, pendingJobsSchema, type PendingJobs } from '@mi/contracts/studies';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { JOB_SCHEMA } from '../../jobs/queue';
import type { Services } from '../../services';

const USER_JOBS = jobNameSchema.options;

/** `GET /api/jobs/pending/:userId`: the caller's queued, retrying and running study jobs. */
export function jobsRoutes(services: Services): FastifyPluginAsyncZod {
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
      async (req): Promise<PendingJobs> => {
        const auth = requireUser(req);
        await services.studies.requireSelf(auth, req.params.userId, 'jobs.list', requestMeta(req));
        // Jobs carry their owner in `data.userId` (see process-study.job.ts).
        const res = await services.database.sql.executeSql(
          `select id, name, state, data->>'studyId' as study_id, created_on from ${JOB_SCHEMA}.job
           where name = any($1::text[]) and state in ('created', 'retry', 'active') and data->>'userId' = $2
           order by created_on`,
          [USER_JOBS, auth.user.id],
        );
        const jobs = (res.rows as Array<Record<string, unknown>>).map((r) => ({
          id: String(r.id),
          name: jobNameSchema.parse(r.name),
          state: String(r.state),
          studyId: r.study_id == null ? null : String(r.study_id),
          createdAt: new Date(r.created_on as string).toISOString(),
        }));
        return { count: jobs.length, jobs };
      },
    );
  };
}
