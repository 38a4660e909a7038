import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { myOfferListSchema, myOfferSchema, offerSettingsSchema } from '@mi/contracts/directory';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { ServicesService } from './services.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  422: errorBodySchema,
};
const params = z.object({ serviceId: z.string().max(64) });

/** A verified professional's own offers (Directory Profile → Offers); the one 404 for anyone else. */
export function professionalOffersRoutes(services: ServicesService): FastifyPluginAsyncZod {
  return async (app) => {
    const { professional } = services;
    app.get(
      '/professional/offers',
      {
        schema: {
          tags: ['services'],
          summary: 'The services you may offer, with your offer of each',
          response: { 200: myOfferListSchema, ...errors },
        },
      },
      async (req) => professional.list(requireUser(req).user.id),
    );
    app.put(
      '/professional/offers/:serviceId',
      {
        schema: {
          tags: ['services'],
          summary: 'Offer a service at your price, turnaround and modalities (or change them)',
          params,
          body: offerSettingsSchema,
          response: { 200: myOfferSchema, ...errors },
        },
      },
      async (req) =>
        professional.save(requireUser(req).user, req.params.serviceId, req.body, requestMeta(req)),
    );
    app.delete(
      '/professional/offers/:serviceId',
      {
        schema: {
          tags: ['services'],
          summary: 'Stop offering a service (paid orders go on)',
          params,
          response: { 200: myOfferSchema, ...errors },
        },
      },
      async (req) => professional.withdraw(requireUser(req).user, req.params.serviceId, requestMeta(req)),
    );
  };
}
