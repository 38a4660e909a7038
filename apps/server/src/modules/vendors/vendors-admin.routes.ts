import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { vendorConfigResponseSchema, vendorWebhookBodySchema } from '@mi/contracts/vendors';
import { requestMeta, requireAdmin } from '../../http/auth-hook';
import type { VendorsService } from './vendors.service';

const idParams = z.object({ id: z.string().max(100) });
const errors = {
  400: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  422: errorBodySchema,
};

/**
 * Admin → Providers → AI vendor: a directory provider's webhook and signing secret (the secret is
 * answered only when it is made). Others get 404; every change needs a recent sign-in.
 */
export function vendorsAdminRoutes(vendors: VendorsService): FastifyPluginAsyncZod {
  return async (app) => {
    const { admin } = vendors;

    app.put(
      '/admin/providers/:id/vendor',
      {
        schema: {
          tags: ['admin'],
          summary:
            'Make a provider an external AI vendor: its webhook URL (a signing secret is made and shown once if it has none)',
          params: idParams,
          body: vendorWebhookBodySchema,
          response: { 200: vendorConfigResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.setWebhook(requireAdmin(req), req.params.id, req.body, requestMeta(req));
        return { message: 'Vendor webhook saved', data };
      },
    );
    app.post(
      '/admin/providers/:id/vendor/secret',
      {
        schema: {
          tags: ['admin'],
          summary: "Rotate an external AI vendor's signing secret (the new one is shown once)",
          params: idParams,
          response: { 200: vendorConfigResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.rotateSecret(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Signing secret rotated', data };
      },
    );
    app.delete(
      '/admin/providers/:id/vendor',
      {
        schema: {
          tags: ['admin'],
          summary: 'Stop sending orders to an external AI vendor (its webhook and secret are removed)',
          params: idParams,
          response: { 200: vendorConfigResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.remove(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Vendor webhook removed', data };
      },
    );
  };
}
