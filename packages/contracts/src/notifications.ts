import { z } from 'zod';
import { notificationSchema } from './studies';

/** The notifications page: every notification, read and unread, newest first, a page at a time. */
export const NOTIFICATIONS_PAGE_SIZE = 20;
export const notificationPageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(NOTIFICATIONS_PAGE_SIZE),
});
export const notificationPageSchema = z.object({
  data: z.array(notificationSchema),
  page: z.number(),
  limit: z.number(),
  total: z.number(),
  unreadCount: z.number(),
});
export type NotificationPage = z.infer<typeof notificationPageSchema>;
export const markAllReadResponseSchema = z.object({
  message: z.string(),
  data: z.object({ updated: z.number() }),
});
