import type { Notification } from '@mi/contracts/studies';
import { AppError } from '../../http/app-error';
import type { MailService } from '../mail';
import { notificationEmail } from '../mail';
import type { UserRow, UsersRepository } from '../accounts';
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

export interface NotificationDeps {
  repo: NotificationsRepository;
  users: Pick<UsersRepository, 'findById'>;
  mail: Pick<MailService, 'send'>;
  appUrl: string;
}

/** What happened, for the in-app list and (without patient data) for the email. */
export interface NotificationEvent {
  type: Notification['type'];
  title: string;
  description: string;
  /** An app path the email links to (default: the dashboard). */
  path?: string;
}

/**
 * Whether a user is emailed their notifications: they asked for it (Settings, Notifications) and the
 * account is active. Every notification email follows this one rule (see also ingest/notify.stage.ts).
 */
export function wantsNotificationEmail(
  user: Pick<UserRow, 'emailNotifications' | 'accountStatus'> | undefined,
): boolean {
  return !!user && user.emailNotifications && user.accountStatus === 'active';
}

/**
 * The signed-in user's own notifications (the list with its unread count, marking one read), and
 * `notify`, the one way every module tells a user something happened.
 */
export function createNotificationsService(deps: NotificationDeps) {
  const { repo } = deps;
  return {
    /**
     * The in-app notification and, when the user wants emails, an email saying the same. Callers
     * keep patient data out of `title` and `description`: they travel by email.
     */
    async notify(userId: string, event: NotificationEvent): Promise<void> {
      await repo.insert({ userId, type: event.type, title: event.title, description: event.description });
      const user = await deps.users.findById(userId);
      if (user && wantsNotificationEmail(user))
        await deps.mail.send(
          user.email,
          notificationEmail({
            title: event.title,
            description: event.description,
            link: new URL(event.path ?? '/', deps.appUrl).toString(),
          }),
        );
    },

    async list(userId: string): Promise<{ data: Notification[]; unreadCount: number }> {
      const rows = await repo.listFor(userId, LIST_LIMIT);
      const unreadCount = await repo.unreadCount(userId);
      return { data: rows.map(toDto), unreadCount };
    },

    /** The notifications page: all of them, read and unread, newest first. */
    async page(userId: string, page: number, limit: number) {
      const { rows, total } = await repo.page(userId, limit, (page - 1) * limit);
      const unreadCount = await repo.unreadCount(userId);
      return { data: rows.map(toDto), page, limit, total, unreadCount };
    },

    async markAllRead(userId: string): Promise<{ updated: number }> {
      return { updated: await repo.markAllRead(userId) };
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
