import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  adminProviderListSchema,
  adminProviderResponseSchema,
  linkProviderBodySchema,
  providerInputSchema,
} from '@mi/contracts/sharing';
import { requestMeta, requireAdmin } from '../../http/auth-hook';
import type { ProvidersService } from './providers.service';

const idParams = z.object({ id: z.string().max(100) });
const errors = { 400: errorBodySchema, 404: errorBodySchema, 409: errorBodySchema, 422: errorBodySchema };

/** Admin → Providers: curate the directory and link entries to professional accounts. Others get 404. */
export function providersAdminRoutes(providers: ProvidersService): FastifyPluginAsyncZod {
  return async (app) => {
    const { admin } = providers;
    app.get(
      '/admin/providers',
      {
        schema: {
          tags: ['admin'],
          summary: 'Every directory provider, retired ones last',
          response: { 200: adminProviderListSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        requireAdmin(req);
        return { data: await admin.list() };
      },
    );
    app.post(
      '/admin/providers',
      {
        schema: {
          tags: ['admin'],
          summary: 'Add a provider to the directory',
          body: providerInputSchema,
          response: { 201: adminProviderResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const data = await admin.create(requireAdmin(req), req.body, requestMeta(req));
        return reply.status(201).send({ message: 'Provider created', data });
      },
    );
    app.put(
      '/admin/providers/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'Edit a directory provider',
          params: idParams,
          body: providerInputSchema,
          response: { 200: adminProviderResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.update(requireAdmin(req), req.params.id, req.body, requestMeta(req));
        return { message: 'Provider updated', data };
      },
    );
    app.post(
      '/admin/providers/:id/retire',
      {
        schema: {
          tags: ['admin'],
          summary: 'Retire a provider: hidden from the directory and from every network',
          params: idParams,
          response: { 200: adminProviderResponseSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        const data = await admin.retire(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Provider retired', data };
      },
    );
    app.post(
      '/admin/providers/:id/restore',
      {
        schema: {
          tags: ['admin'],
          summary: 'Bring a retired provider back',
          params: idParams,
          response: { 200: adminProviderResponseSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        const data = await admin.restore(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Provider restored', data };
      },
    );
    app.put(
      '/admin/providers/:id/link',
      {
        schema: {
          tags: ['admin'],
          summary: "Link a provider to an approved professional's account by its email",
          params: idParams,
          body: linkProviderBodySchema,
          response: { 200: adminProviderResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.link(requireAdmin(req), req.params.id, req.body.email, requestMeta(req));
        return { message: 'Provider linked', data };
      },
    );
    app.delete(
      '/admin/providers/:id/link',
      {
        schema: {
          tags: ['admin'],
          summary: 'Unlink a provider from its account',
          params: idParams,
          response: { 200: adminProviderResponseSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        const data = await admin.unlink(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Provider unlinked', data };
      },
    );
  };
}
