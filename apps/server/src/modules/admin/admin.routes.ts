import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  adminHealthSchema,
  adminUserDetailSchema,
  adminUserListQuerySchema,
  adminUserListSchema,
  adminUserResponseSchema,
  auditListSchema,
  auditQuerySchema,
  disableUserBodySchema,
  failedJobListSchema,
  quotaBodySchema,
  reauthBodySchema,
  reauthResponseSchema,
  retryJobResponseSchema,
  outboxListSchema,
  professionalDecisionResponseSchema,
  professionalListQuerySchema,
  professionalListSchema,
  rejectProfessionalBodySchema,
} from '@mi/contracts/admin';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { requestMeta, requireAdmin } from '../../http/auth-hook';
import { setSessionCookies } from '../../http/session-cookies';
import type { AdminService } from './admin.service';
import type { ProfessionalsService } from './professionals.service';

const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 404: errorBodySchema };

/**
 * Admin area: accounts, the audit log, the mail outbox, failed jobs, health and professional
 * verification. Everyone else gets 404; changes need a recent sign-in (403 REAUTH_REQUIRED).
 */
export function adminRoutes({
  admin,
  professionals,
  secureCookies = false,
}: {
  admin: AdminService;
  professionals: ProfessionalsService;
  secureCookies?: boolean;
}): FastifyPluginAsyncZod {
  return async (app) => {
    const idParams = z.object({ id: z.string().max(100) });

    app.post(
      '/admin/reauth',
      {
        config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
        schema: {
          tags: ['admin'],
          summary: 'Sign in again for admin actions: the password, then the code when a second factor is on',
          body: reauthBodySchema,
          response: { 200: reauthResponseSchema, ...errors, 429: errorBodySchema },
        },
      },
      async (req, reply) => {
        const result = await admin.reauthenticate(requireAdmin(req), req.body, requestMeta(req));
        if (result.status === 'ok') setSessionCookies(reply, result, secureCookies);
        return result;
      },
    );

    app.get(
      '/admin/users',
      {
        schema: {
          tags: ['admin'],
          summary: 'Accounts, searched by name or email, newest first',
          querystring: adminUserListQuerySchema,
          response: { 200: adminUserListSchema, ...errors },
        },
      },
      async (req) => admin.listUsers(requireAdmin(req), req.query, requestMeta(req)),
    );
    app.get(
      '/admin/users/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'One account: role, status, sign-ins, second factor, storage',
          params: idParams,
          response: { 200: adminUserDetailSchema, ...errors },
        },
      },
      async (req) => ({ data: await admin.getUser(requireAdmin(req), req.params.id, requestMeta(req)) }),
    );
    app.post(
      '/admin/users/:id/disable',
      {
        schema: {
          tags: ['admin'],
          summary: 'Disable an account: no sign-in; its sessions, viewer grants and upload credentials end',
          params: idParams,
          body: disableUserBodySchema.optional(),
          response: { 200: adminUserResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.disableUser(
          requireAdmin(req),
          req.params.id,
          req.body?.reason || undefined,
          requestMeta(req),
        );
        return { message: 'Account disabled', data };
      },
    );
    app.post(
      '/admin/users/:id/enable',
      {
        schema: {
          tags: ['admin'],
          summary: 'Enable a disabled account',
          params: idParams,
          response: { 200: adminUserResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.enableUser(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Account enabled', data };
      },
    );
    app.post(
      '/admin/users/:id/reset-mfa',
      {
        schema: {
          tags: ['admin'],
          summary: "Turn off the user's second factor (authenticator and recovery codes removed)",
          params: idParams,
          response: { 200: adminUserResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.resetMfa(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Two-factor authentication reset', data };
      },
    );
    app.put(
      '/admin/users/:id/quota',
      {
        schema: {
          tags: ['admin'],
          summary: "Set the user's storage quota in GB (null: the default)",
          params: idParams,
          body: quotaBodySchema,
          response: { 200: adminUserResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await admin.setQuota(
          requireAdmin(req),
          req.params.id,
          req.body.maxStorageGB,
          requestMeta(req),
        );
        return { message: 'Storage quota updated', data };
      },
    );

    app.get(
      '/admin/audit',
      {
        schema: {
          tags: ['admin'],
          summary: 'The audit log, newest first, filtered by user, study, action and date range',
          querystring: auditQuerySchema,
          response: { 200: auditListSchema, ...errors },
        },
      },
      async (req) => admin.auditLog(requireAdmin(req), req.query, requestMeta(req)),
    );
    app.get(
      '/admin/audit/export',
      {
        schema: {
          tags: ['admin'],
          summary: 'The filtered audit log as CSV (streamed)',
          querystring: auditQuerySchema.omit({ page: true, limit: true }),
          response: { 200: z.unknown(), ...errors },
        },
      },
      async (req, reply) => {
        const stream = await admin.exportAudit(requireAdmin(req), req.query, requestMeta(req));
        const day = new Date().toISOString().slice(0, 10);
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="audit-log-${day}.csv"`)
          .header('cache-control', 'no-store');
        return reply.send(stream);
      },
    );

    app.get(
      '/admin/health',
      {
        schema: {
          tags: ['admin'],
          summary: 'Database, storage, job queue (and its depth) and free disk space',
          response: { 200: adminHealthSchema, ...errors },
        },
      },
      async (req) => {
        requireAdmin(req);
        return admin.health();
      },
    );
    app.post(
      '/admin/jobs/:id/retry',
      {
        schema: {
          tags: ['admin'],
          summary: 'Run a failed job again',
          params: idParams,
          response: { 200: retryJobResponseSchema, ...errors },
        },
      },
      async (req) => {
        await admin.retryJob(requireAdmin(req), req.params.id, requestMeta(req));
        return { message: 'Job queued again' };
      },
    );

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
          response: { 200: professionalDecisionResponseSchema, 403: errorBodySchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        const data = await professionals.approve(requireAdmin(req), req.params.id, requestMeta(req));
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
          response: { 200: professionalDecisionResponseSchema, ...errors },
        },
      },
      async (req) => {
        const data = await professionals.reject(
          requireAdmin(req),
          req.params.id,
          req.body.reason,
          requestMeta(req),
        );
        return { message: 'Application rejected', data };
      },
    );
  };
}
