import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { notificationListSchema, notificationResponseSchema } from '@mi/contracts/studies';
import {
  markAllReadResponseSchema,
  notificationPageQuerySchema,
  notificationPageSchema,
} from '@mi/contracts/notifications';
import { requireUser } from '../../http/auth-hook';
import type { NotificationsService } from './notifications.service';

/**
 * The caller's own notifications: `GET /api/notifications/` (unread first, for Recent Activity),
 * `GET /api/notifications/all` (the notifications page), `PUT /api/notifications/:id/read` and
 * `PUT /api/notifications/read-all`.
 */
export function notificationsRoutes(notifications: NotificationsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/notifications/',
      {
        schema: {
          tags: ['notifications'],
          summary: 'Your notifications, unread first, then newest first',
          response: { 200: notificationListSchema, 401: errorBodySchema },
        },
      },
      async (req) => notifications.list(requireUser(req).user.id),
    );

    app.get(
      '/notifications/all',
      {
        schema: {
          tags: ['notifications'],
          summary: 'All your notifications, read and unread, newest first, a page at a time',
          querystring: notificationPageQuerySchema,
          response: { 200: notificationPageSchema, 400: errorBodySchema, 401: errorBodySchema },
        },
      },
      async (req) => notifications.page(requireUser(req).user.id, req.query.page, req.query.limit),
    );

    app.put(
      '/notifications/read-all',
      {
        schema: {
          tags: ['notifications'],
          summary: 'Mark all your notifications read',
          response: { 200: markAllReadResponseSchema, 401: errorBodySchema },
        },
      },
      async (req) => {
        const data = await notifications.markAllRead(requireUser(req).user.id);
        return { message: 'All notifications marked as read', data };
      },
    );

    app.put(
      '/notifications/:id/read',
      {
        schema: {
          tags: ['notifications'],
          summary: 'Mark a notification read',
          params: z.object({ id: z.string().min(1).max(200) }),
          response: { 200: notificationResponseSchema, 401: errorBodySchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        const data = await notifications.markRead(requireUser(req).user.id, req.params.id);
        return { message: 'Notification marked as read', data };
      },
    );
  };
}
