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
import type { PaymentsService } from './payments.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  422: errorBodySchema,
};

/** Card payments: the intent, our card form's confirmation (sandbox), Stripe's completion. */
export function paymentsRoutes(payments: PaymentsService): FastifyPluginAsyncZod {
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
        return payments.paymentConfig();
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
      async (req) => payments.createPaymentIntent(requireUser(req).user, req.body, requestMeta(req)),
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
        payments.confirmSandbox(
          requireUser(req).user,
          req.body.clientSecret,
          req.body.card,
          requestMeta(req),
        ),
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
        payments.authenticateSandbox(
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
        payments.completePayment(requireUser(req).user, req.body.paymentIntentId, requestMeta(req)),
    );
  };
}
