import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  failedJobListSchema,
  outboxListSchema,
  professionalDecisionResponseSchema,
  professionalListQuerySchema,
  professionalListSchema,
  rejectProfessionalBodySchema,
} from '@mi/contracts/admin';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { requestMeta, requireAdmin } from '../../http/auth-hook';
import type { AdminService } from './admin.service';
import type { ProfessionalsService } from './professionals.service';

/** Admin area: the mail outbox, failed jobs and professional verification. Everyone else gets 404. */
export function adminRoutes({
  admin,
  professionals,
}: {
  admin: AdminService;
  professionals: ProfessionalsService;
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/outbox',
      {
        schema: {
          tags: ['admin'],
          summary: 'Mail kept in the outbox',
          response: { 200: outboxListSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        return { data: await admin.outbox(requireAdmin(req), requestMeta(req)) };
      },
    );
    app.get(
      '/admin/jobs/failed',
      {
        schema: {
          tags: ['admin'],
          summary: 'Jobs that failed after their retries',
          response: { 200: failedJobListSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        requireAdmin(req);
        return { data: await admin.failedJobs() };
      },
    );

    const idParams = z.object({ id: z.string().max(100) });
    app.get(
      '/admin/professionals',
      {
        schema: {
          tags: ['admin'],
          summary: 'Medical professional applications (pending by default)',
          querystring: professionalListQuerySchema,
          response: { 200: professionalListSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        requireAdmin(req);
        return { data: await professionals.list(req.query.status) };
      },
    );
    app.post(
      '/admin/professionals/:id/approve',
      {
        schema: {
          tags: ['admin'],
          summary: 'Approve a professional after verifying the licence',
          params: idParams,
          response: { 200: professionalDecisionResponseSchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        const data = await professionals.approve(requireAdmin(req).user, req.params.id, requestMeta(req));
        return { message: 'Application approved', data };
      },
    );
    app.post(
      '/admin/professionals/:id/reject',
      {
        schema: {
          tags: ['admin'],
          summary: 'Reject a professional application with a reason',
          params: idParams,
          body: rejectProfessionalBodySchema,
          response: { 200: professionalDecisionResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        const data = await professionals.reject(
          requireAdmin(req).user,
          req.params.id,
          req.body.reason,
          requestMeta(req),
        );
        return { message: 'Application rejected', data };
      },
    );
  };
}
