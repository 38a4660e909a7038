import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { requestMeta } from '../../http/auth-hook';
import type { PaymentWebhooksService } from './payment-webhooks.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  422: errorBodySchema,
};

/**
 * POST /api/payments/webhook: Stripe's signed events. Its own plugin, so only this route reads the
 * body as the raw bytes the signature covers.
 */
export function paymentsWebhookRoutes(webhooks: PaymentWebhooksService): FastifyPluginAsyncZod {
  return async (app) => {
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );
    app.post(
      '/payments/webhook',
      {
        schema: {
          tags: ['payments'],
          summary: 'Stripe’s webhook (signature verified; a replayed event changes nothing)',
          response: { 200: z.object({ received: z.boolean() }), ...errors },
        },
      },
      async (req) => {
        const signature = req.headers['stripe-signature'];
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        await webhooks.handleWebhook(raw, typeof signature === 'string' ? signature : '', requestMeta(req));
        return { received: true };
      },
    );
  };
}
