import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthSchema } from '@mi/contracts/admin';
import type { HealthService } from './health.service';

/** `GET /api/health`: 200 when database, storage and job queue answer, 503 otherwise. */
export function healthRoutes(health: HealthService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['health'],
          summary: 'Database, storage and queue status',
          response: { 200: healthSchema, 503: healthSchema },
        },
      },
      async (_req, reply) => {
        const status = await health.check();
        return reply.status(status.status === 'ok' ? 200 : 503).send(status);
      },
    );
  };
}
