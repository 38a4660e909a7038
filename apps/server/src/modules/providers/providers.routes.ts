import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  messageSchema,
  providerIdBodySchema,
  providerListQuerySchema,
  providerListSchema,
  providerResponseSchema,
} from '@mi/contracts/sharing';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { ProvidersService } from './providers.service';

const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };

/** The provider directory and the signed-in user's trusted network (/providers). */
export function providersRoutes(providers: ProvidersService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/providers',
      {
        schema: {
          tags: ['providers'],
          summary:
            'The provider directory, optionally narrowed by name or email, specialty, country, experience',
          querystring: providerListQuerySchema,
          response: { 200: providerListSchema, ...errors },
        },
      },
      async (req) => {
        requireUser(req);
        return { data: await providers.listDirectory(req.query) };
      },
    );

    app.get(
      '/users/providers',
      {
        schema: {
          tags: ['providers'],
          summary: 'Your trusted providers, newest first',
          response: { 200: providerListSchema, ...errors },
        },
      },
      async (req) => ({ data: await providers.listNetwork(requireUser(req).user.id) }),
    );

    app.post(
      '/users/providers',
      {
        schema: {
          tags: ['providers'],
          summary: 'Add a provider to your network (adding twice changes nothing)',
          body: providerIdBodySchema,
          response: { 200: providerResponseSchema, ...errors, 429: errorBodySchema },
        },
      },
      async (req) => {
        const data = await providers.add(requireUser(req).user, req.body.providerId, requestMeta(req));
        return { message: 'Provider added', data };
      },
    );

    // The specification's client calls it with a trailing slash; both spellings work.
    for (const url of ['/users/providers', '/users/providers/']) {
      app.delete(
        url,
        {
          schema: {
            tags: ['providers'],
            summary: 'Remove a provider from your network (what was shared with it stays shared)',
            body: providerIdBodySchema,
            response: { 200: messageSchema, ...errors },
          },
        },
        async (req) => {
          await providers.remove(requireUser(req).user, req.body.providerId, requestMeta(req));
          return { message: 'Provider removed' };
        },
      );
    }
  };
}
