import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { serviceListSchema } from '@mi/contracts/orders';
import { requireUser } from '../../http/auth-hook';
import type { ServicesService } from './services.service';

/** The analysis service catalogue (Available Services, Analysis services). */
export function servicesRoutes(services: ServicesService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/services',
      {
        schema: {
          tags: ['services'],
          summary: 'Analysis services and the providers offering them, with prices in dollars',
          response: { 200: serviceListSchema, 401: errorBodySchema, 403: errorBodySchema },
        },
      },
      async (req) => services.list(requireUser(req).user.id),
    );
  };
}
