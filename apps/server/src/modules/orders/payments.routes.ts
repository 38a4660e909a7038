import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  completePaymentBodySchema,
  createPaymentIntentBodySchema,
  paymentConfigSchema,
  paymentIntentResponseSchema,
  paymentResultSchema,
  sandboxAuthenticateBodySchema,
  sandboxConfirmBodySchema,
} from '@mi/contracts/orders';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { OrdersService } from './orders.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  422: errorBodySchema,
};

/** Card payments: the intent, our card form's confirmation (sandbox), Stripe's completion. */
export function paymentsRoutes(orders: OrdersService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/payments/config',
      {
        schema: {
          tags: ['payments'],
          summary: 'Which card form to show: the sandbox processor’s or Stripe Elements',
          response: { 200: paymentConfigSchema, ...errors },
        },
      },
      async (req) => {
        requireUser(req);
        return orders.paymentConfig();
      },
    );

    app.post(
      '/payments/create-payment-intent',
      {
        schema: {
          tags: ['payments'],
          summary:
            'A payment intent for an offer (service, provider, your study) or an order of yours waiting for payment; the amount (cents) is the server’s',
          body: createPaymentIntentBodySchema,
          response: { 200: paymentIntentResponseSchema, ...errors },
        },
      },
      async (req) => orders.createPaymentIntent(requireUser(req).user, req.body, requestMeta(req)),
    );

    app.post(
      '/payments/sandbox/confirm',
      {
        schema: {
          tags: ['payments'],
          summary:
            'Pay with a card through the embedded sandbox processor (Stripe’s test cards); only brand and last four digits are kept',
          body: sandboxConfirmBodySchema,
          response: { 200: paymentResultSchema, ...errors },
        },
      },
      async (req) =>
        orders.confirmSandbox(requireUser(req).user, req.body.clientSecret, req.body.card, requestMeta(req)),
    );

    app.post(
      '/payments/sandbox/authenticate',
      {
        schema: {
          tags: ['payments'],
          summary: 'Complete or fail the extra confirmation step a card asked for (sandbox processor)',
          body: sandboxAuthenticateBodySchema,
          response: { 200: paymentResultSchema, ...errors },
        },
      },
      async (req) =>
        orders.authenticateSandbox(
          requireUser(req).user,
          req.body.clientSecret,
          req.body.approve,
          requestMeta(req),
        ),
    );

    app.post(
      '/payments/complete',
      {
        schema: {
          tags: ['payments'],
          summary: 'After Stripe.js confirmed a payment: the server asks Stripe and records the purchase',
          body: completePaymentBodySchema,
          response: { 200: paymentResultSchema, ...errors },
        },
      },
      async (req) =>
        orders.completePayment(requireUser(req).user, req.body.paymentIntentId, requestMeta(req)),
    );
  };
}

/**
 * POST /api/payments/webhook: Stripe's signed events. Its own plugin, so only this route reads the
 * body as the raw bytes the signature covers.
 */
export function paymentsWebhookRoutes(orders: OrdersService): FastifyPluginAsyncZod {
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
        await orders.handleWebhook(raw, typeof signature === 'string' ? signature : '', requestMeta(req));
        return { received: true };
      },
    );
  };
}
