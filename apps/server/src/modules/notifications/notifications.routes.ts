import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { notificationListSchema, notificationResponseSchema } from '@mi/contracts/studies';
import { requireUser } from '../../http/auth-hook';
import type { NotificationsService } from './notifications.service';

/** `GET /api/notifications/` and `PUT /api/notifications/:id/read`, for the caller's own notifications. */
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
