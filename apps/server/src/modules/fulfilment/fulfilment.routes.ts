import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBodySchema } from '@mi/contracts/errors';
import {
  attachStudyBodySchema,
  declineOrderBodySchema,
  deliverReportBodySchema,
  orderDataNeedSchema,
  orderStatusAfterAttachSchema,
  professionalOrderListSchema,
  professionalOrderSchema,
  reportDraftSchema,
  reportPartQuerySchema,
} from '@mi/contracts/fulfilment';
import { requestMeta, requireUser } from '../../http/auth-hook';
import type { FulfilmentService } from './fulfilment.service';

const errors = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
  409: errorBodySchema,
  422: errorBodySchema,
};
const params = z.object({ id: z.string().max(64) });

/** A professional's orders (My Orders), the delivered report, and data for orders that need it. */
export function fulfilmentRoutes(fulfilment: FulfilmentService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/professional/orders',
      {
        schema: {
          tags: ['fulfilment'],
          summary: 'Orders sent to the providers linked to your professional account',
          response: { 200: professionalOrderListSchema, ...errors },
        },
      },
      async (req) => fulfilment.listMine(requireUser(req).user, requestMeta(req)),
    );

    app.get(
      '/professional/orders/:id',
      {
        schema: {
          tags: ['fulfilment'],
          summary: 'One order sent to you',
          params,
          response: { 200: professionalOrderSchema, ...errors },
        },
      },
      async (req) => fulfilment.getMine(requireUser(req).user, req.params.id, requestMeta(req)),
    );

    app.post(
      '/professional/orders/:id/accept',
      {
        schema: {
          tags: ['fulfilment'],
          summary: 'Accept an order: you may read its study until the order ends',
          params,
          response: { 200: professionalOrderSchema, ...errors },
        },
      },
      async (req) => fulfilment.accept(requireUser(req).user, req.params.id, requestMeta(req)),
    );

    app.post(
      '/professional/orders/:id/decline',
      {
        schema: {
          tags: ['fulfilment'],
          summary: 'Decline an order: the patient is refunded in full',
          params,
          body: declineOrderBodySchema,
          response: { 200: professionalOrderSchema, ...errors },
        },
      },
      async (req) => fulfilment.decline(requireUser(req).user, req.params.id, req.body, requestMeta(req)),
    );

    app.put(
      '/professional/orders/:id/report',
      {
        schema: {
          tags: ['fulfilment'],
          summary: 'Save the report being written',
          params,
          body: reportDraftSchema,
          response: { 200: professionalOrderSchema, ...errors },
        },
      },
      async (req) => fulfilment.saveDraft(requireUser(req).user, req.params.id, req.body, requestMeta(req)),
    );

    app.post(
      '/professional/orders/:id/deliver',
      {
        schema: {
          tags: ['fulfilment'],
          summary: 'Deliver the report into the study (a PDF series) and complete the order',
          params,
          body: deliverReportBodySchema,
          response: { 200: professionalOrderSchema, ...errors },
        },
      },
      async (req) => fulfilment.deliver(requireUser(req).user, req.params.id, req.body, requestMeta(req)),
    );

    app.get(
      '/orders/:id/report',
      {
        schema: {
          tags: ['fulfilment'],
          summary:
            "The order's delivered report (PDF); part=automated: the automated part of a Complete Analysis Package",
          params,
          querystring: reportPartQuerySchema,
          response: { 200: z.any(), ...errors },
        },
      },
      async (req, reply) => {
        const report = await fulfilment.openReport(
          requireUser(req).user,
          req.params.id,
          requestMeta(req),
          req.query.part,
        );
        return reply
          .header('content-type', 'application/pdf')
          .header('content-disposition', `inline; filename="${report.fileName}"`)
          .header('cache-control', 'private, no-store')
          .send(report.body);
      },
    );

    app.get(
      '/orders/:id/data-need',
      {
        schema: {
          tags: ['fulfilment'],
          summary: 'What an order waiting for data needs',
          params,
          response: { 200: orderDataNeedSchema, ...errors },
        },
      },
      async (req) => fulfilment.dataNeed(requireUser(req).user, req.params.id, requestMeta(req)),
    );

    app.post(
      '/orders/:id/study',
      {
        schema: {
          tags: ['fulfilment'],
          summary: 'Attach another of your studies to an order waiting for data',
          params,
          body: attachStudyBodySchema,
          response: { 200: orderStatusAfterAttachSchema, ...errors },
        },
      },
      async (req) => fulfilment.attachStudy(requireUser(req).user, req.params.id, req.body, requestMeta(req)),
    );
  };
}
