import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  adminServiceListSchema,
  adminServiceResponseSchema,
  offerInputSchema,
  offerPriceSchema,
  serviceInputSchema,
} from '@mi/contracts/catalogue-admin';
import { requestMeta, requireAdmin } from '../../http/auth-hook';
import type { CatalogueAdminService } from './catalogue-admin.service';

const idParams = z.object({ id: z.string().max(100) });
const offerParams = z.object({ id: z.string().max(100), providerId: z.string().max(100) });
const errors = {
  400: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  422: errorBodySchema,
};

/** Admin → Services: the analysis service catalogue and its offers. Others get 404. */
export function catalogueAdminRoutes(catalogue: CatalogueAdminService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/services',
      {
        schema: {
          tags: ['admin'],
          summary: 'Every analysis service with all its offers, retired ones last',
          response: { 200: adminServiceListSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        requireAdmin(req);
        return { data: await catalogue.list() };
      },
    );
    app.post(
      '/admin/services',
      {
        schema: {
          tags: ['admin'],
          summary: 'Add an analysis service (offered once a provider offer is added)',
          body: serviceInputSchema,
          response: { 201: adminServiceResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const data = await catalogue.create(requireAdmin(req), req.body, requestMeta(req));
        return reply.status(201).send({ message: 'Service created', data });
      },
    );
    app.put(
      '/admin/services/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'Edit an analysis service',
          params: idParams,
          body: serviceInputSchema,
          response: { 200: adminServiceResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await catalogue.update(requireAdmin(req), req.params.id, req.body, requestMeta(req));
        return { message: 'Service updated', data };
      },
    );
    app.post(
      '/admin/services/:id/retire',
      {
        schema: {
          tags: ['admin'],
          summary: 'Retire a service: no longer offered; existing orders are unaffected',
          params: idParams,
          response: { 200: adminServiceResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await catalogue.retire(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Service retired', data };
      },
    );
    app.post(
      '/admin/services/:id/restore',
      {
        schema: {
          tags: ['admin'],
          summary: 'Offer a retired service again',
          params: idParams,
          response: { 200: adminServiceResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await catalogue.restore(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Service restored', data };
      },
    );
    app.post(
      '/admin/services/:id/offers',
      {
        schema: {
          tags: ['admin'],
          summary: 'A directory provider offers the service at a price in dollars',
          params: idParams,
          body: offerInputSchema,
          response: { 201: adminServiceResponseSchema, ...errors },
        },
      },
      async (req, reply) => {
        const data = await catalogue.addOffer(requireAdmin(req), req.params.id, req.body, requestMeta(req));
        return reply.status(201).send({ message: 'Offer added', data });
      },
    );
    app.put(
      '/admin/services/:id/offers/:providerId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Change an offer’s price, turnaround or modalities: applies to new orders only',
          params: offerParams,
          body: offerPriceSchema,
          response: { 200: adminServiceResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await catalogue.repriceOffer(
          requireAdmin(req),
          req.params.id,
          req.params.providerId,
          req.body,
          requestMeta(req),
        );
        return { message: 'Price updated', data };
      },
    );
    app.post(
      '/admin/services/:id/offers/:providerId/restore',
      {
        schema: {
          tags: ['admin'],
          summary: 'Restore a retired offer: sold again while someone can deliver it',
          params: offerParams,
          response: { 200: adminServiceResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await catalogue.restoreOffer(
          requireAdmin(req),
          req.params.id,
          req.params.providerId,
          requestMeta(req),
        );
        return { message: 'Offer restored', data };
      },
    );
    app.post(
      '/admin/services/:id/offers/:providerId/retire',
      {
        schema: {
          tags: ['admin'],
          summary: 'Retire an offer: the provider no longer offers the service',
          params: offerParams,
          response: { 200: adminServiceResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await catalogue.retireOffer(
          requireAdmin(req),
          req.params.id,
          req.params.providerId,
          requestMeta(req),
        );
        return { message: 'Offer retired', data };
      },
    );
  };
}
