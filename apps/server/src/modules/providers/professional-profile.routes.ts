import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  pauseOffersBodySchema,
  professionalProfileInputSchema,
  professionalProfileSchema,
  publishProfileBodySchema,
} from '@mi/contracts/directory';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { ProvidersService } from './providers.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  422: errorBodySchema,
};

/**
 * A verified professional's own directory profile (Directory Profile in their workspace). The
 * service answers the one 404 to anyone without a verified professional account.
 */
export function professionalProfileRoutes(providers: ProvidersService): FastifyPluginAsyncZod {
  return async (app) => {
    const { professional } = providers;
    app.get(
      '/professional/profile',
      {
        schema: {
          tags: ['providers'],
          summary: 'Your directory profile (made from your registration on first visit)',
          response: { 200: professionalProfileSchema, ...errors },
        },
      },
      async (req) => professional.get(requireUser(req).user.id),
    );
    app.put(
      '/professional/profile',
      {
        schema: {
          tags: ['providers'],
          summary: 'Complete your directory profile',
          body: professionalProfileInputSchema,
          response: { 200: professionalProfileSchema, ...errors },
        },
      },
      async (req) => professional.update(requireUser(req).user, req.body, requestMeta(req)),
    );
    app.post(
      '/professional/profile/publish',
      {
        schema: {
          tags: ['providers'],
          summary: 'List your profile in the directory, or take it off (a complete profile is needed)',
          body: publishProfileBodySchema,
          response: { 200: professionalProfileSchema, ...errors },
        },
      },
      async (req) => professional.publish(requireUser(req).user, req.body.published, requestMeta(req)),
    );
    app.post(
      '/professional/offers/pause',
      {
        schema: {
          tags: ['providers'],
          summary: 'Pause every offer (paid orders waiting for you are refunded) or resume them',
          body: pauseOffersBodySchema,
          response: { 200: professionalProfileSchema, ...errors },
        },
      },
      async (req) => professional.pauseOffers(requireUser(req).user, req.body.paused, requestMeta(req)),
    );
  };
}
