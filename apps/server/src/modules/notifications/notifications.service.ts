import type { Notification } from '@mi/contracts/studies';
import { AppError } from '../../http/app-error';
import type { NotificationRow, NotificationsRepository } from './notifications.repository';

/**
 * How many notifications the list returns: unread ones first, each part newest first, so an unread
 * notification is never pushed out of the list by newer read ones.
 */
const LIST_LIMIT = 100;

const toDto = (r: NotificationRow): Notification => ({
  _id: r.id,
  type: r.type,
  title: r.title,
  description: r.description,
  read: r.read,
  createdAt: r.createdAt.toISOString(),
});

/** The signed-in user's own notifications: the list with its unread count, and marking one read. */
export function createNotificationsService(repo: NotificationsRepository) {
  return {
    async list(userId: string): Promise<{ data: Notification[]; unreadCount: number }> {
      const rows = await repo.listFor(userId, LIST_LIMIT);
      const unreadCount = await repo.unreadCount(userId);
      return { data: rows.map(toDto), unreadCount };
    },

    /** Someone else's notification, or an id that is no notification's, is not found. */
    async markRead(userId: string, id: string): Promise<Notification> {
      const row = /^[0-9a-f-]{36}$/i.test(id) ? await repo.markRead(userId, id) : undefined;
      if (!row) throw new AppError('NOT_FOUND', 'Notification not found.');
      return toDto(row);
    },
  };
}
export type NotificationsService = ReturnType<typeof createNotificationsService>;
