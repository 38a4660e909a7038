import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  createOrderBodySchema,
  createPurchaseBodySchema,
  purchaseListSchema,
  purchaseSchema,
} from '@mi/contracts/orders';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { OrderPlacingService } from './order-placing.service';
import type { PaymentsService } from './payments.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  422: errorBodySchema,
};

/** Orders of analysis services (Purchased Services, Transaction History, Analysis services). */
export function ordersRoutes(
  orders: OrderPlacingService & Pick<PaymentsService, 'recordPurchase'>,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/purchases/user/:userId',
      {
        schema: {
          tags: ['orders'],
          summary: "Your purchases (orders), newest first; anyone else's is not found",
          params: z.object({ userId: z.string().max(64) }),
          response: { 200: purchaseListSchema, ...errors },
        },
      },
      async (req) => orders.listPurchases(requireUser(req).user, req.params.userId, requestMeta(req)),
    );

    app.post(
      '/purchases',
      {
        schema: {
          tags: ['orders'],
          summary:
            'The purchase a succeeded payment of yours made (cost and status are the server’s; sending it again creates nothing)',
          body: createPurchaseBodySchema,
          response: { 200: purchaseSchema, ...errors },
        },
      },
      async (req) => orders.recordPurchase(requireUser(req).user, req.body, requestMeta(req)),
    );

    app.post(
      '/orders',
      {
        schema: {
          tags: ['orders'],
          summary: 'Order an analysis of one of your studies; it waits for payment on /billing',
          body: createOrderBodySchema,
          response: { 200: purchaseSchema, ...errors },
        },
      },
      async (req) => orders.createOrder(requireUser(req).user, req.body, requestMeta(req)),
    );

    app.post(
      '/orders/:id/cancel',
      {
        schema: {
          tags: ['orders'],
          summary: 'Cancel an order of yours that is still waiting for payment',
          params: z.object({ id: z.string().max(64) }),
          response: { 200: purchaseSchema, ...errors },
        },
      },
      async (req) => orders.cancelOrder(requireUser(req).user, req.params.id, requestMeta(req)),
    );
  };
}
