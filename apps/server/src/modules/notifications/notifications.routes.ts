import { and, asc, count, desc, eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBodySchema } from '@mi/contracts/errors';
import { notificationListSchema, notificationResponseSchema, type Notification } from '@mi/contracts/studies';
import { notifications } from '../../db/schema/index';
import { AppError } from '../../http/app-error';
import { requireUser } from '../../http/auth-hook';
import type { Services } from '../../services';

/**
 * How many notifications the list returns: unread ones first, each part newest first, so an unread
 * notification is never pushed out of the list by newer read ones.
 */
const LIST_LIMIT = 100;

/** `GET /api/notifications/` and `PUT /api/notifications/:id/read`, for the caller's own notifications. */
export function notificationsRoutes(services: Services): FastifyPluginAsyncZod {
  const { db } = services.database;
  const toDto = (r: typeof notifications.$inferSelect): Notification => ({
    _id: r.id,
    type: r.type,
    title: r.title,
    description: r.description,
    read: r.read,
    createdAt: r.createdAt.toISOString(),
  });
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
      async (req) => {
        const auth = requireUser(req);
        const rows = await db
          .select()
          .from(notifications)
          .where(eq(notifications.userId, auth.user.id))
          .orderBy(asc(notifications.read), desc(notifications.createdAt), desc(notifications.id))
          .limit(LIST_LIMIT);
        const [unread] = await db
          .select({ n: count() })
          .from(notifications)
          .where(and(eq(notifications.userId, auth.user.id), eq(notifications.read, false)));
        return { data: rows.map(toDto), unreadCount: Number(unread?.n ?? 0) };
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
        const auth = requireUser(req);
        const valid = /^[0-9a-f-]{36}$/i.test(req.params.id);
        const [row] = valid
          ? await db
              .update(notifications)
              .set({ read: true })
              .where(and(eq(notifications.id, req.params.id), eq(notifications.userId, auth.user.id)))
              .returning()
          : [];
        if (!row) throw new AppError('NOT_FOUND', 'Notification not found.');
        return { message: 'Notification marked as read', data: toDto(row) };
      },
    );
  };
}
