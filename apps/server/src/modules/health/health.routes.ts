import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthSchema } from '@mi/contracts/admin';
import type { Services } from '../../services';

const ok = (p: Promise<unknown>) => p.then(() => true).catch(() => false);

/** Liveness of the three things a request needs: database, storage and job queue. */
export function healthRoutes(services: Services): FastifyPluginAsyncZod {
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
        const [db, storage, queue] = await Promise.all([
          ok(services.database.ping()),
          ok(services.storage.check()),
          ok(services.queue.ping()),
        ]);
        const healthy = db && storage && queue;
        return reply.status(healthy ? 200 : 503).send({
          status: healthy ? 'ok' : 'degraded',
          database: { ok: db, kind: services.database.kind },
          storage: { ok: storage, kind: services.storage.kind },
          queue: { ok: queue },
        });
      },
    );
  };
}
