import { and, asc, count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { notifications } from '../../db/schema/index';

export type NotificationRow = typeof notifications.$inferSelect;

/** A user's notifications (written by the modules that notify: processing, sharing, …). */
export function createNotificationsRepository(db: Db) {
  return {
    async insert(row: typeof notifications.$inferInsert): Promise<NotificationRow> {
      const [created] = await db.insert(notifications).values(row).returning();
      return created!;
    },

    /** Unread first, each part newest first. */
    listFor(userId: string, limit: number): Promise<NotificationRow[]> {
      return db
        .select()
        .from(notifications)
        .where(eq(notifications.userId, userId))
        .orderBy(asc(notifications.read), desc(notifications.createdAt), desc(notifications.id))
        .limit(limit);
    },

    /** Every notification of the user, read or not, newest first: one page and the total. */
    async page(
      userId: string,
      limit: number,
      offset: number,
    ): Promise<{ rows: NotificationRow[]; total: number }> {
      const rows = await db
        .select()
        .from(notifications)
        .where(eq(notifications.userId, userId))
        .orderBy(desc(notifications.createdAt), desc(notifications.id))
        .limit(limit)
        .offset(offset);
      const [total] = await db
        .select({ n: count() })
        .from(notifications)
        .where(eq(notifications.userId, userId));
      return { rows, total: Number(total?.n ?? 0) };
    },

    /** Marks all the user's unread notifications read; how many were. */
    async markAllRead(userId: string): Promise<number> {
      const rows = await db
        .update(notifications)
        .set({ read: true })
        .where(and(eq(notifications.userId, userId), eq(notifications.read, false)))
        .returning({ id: notifications.id });
      return rows.length;
    },

    async unreadCount(userId: string): Promise<number> {
      const [unread] = await db
        .select({ n: count() })
        .from(notifications)
        .where(and(eq(notifications.userId, userId), eq(notifications.read, false)));
      return Number(unread?.n ?? 0);
    },

    /** Marks one of the user's notifications read; undefined when the user has no such notification. */
    async markRead(userId: string, id: string): Promise<NotificationRow | undefined> {
      const [row] = await db
        .update(notifications)
        .set({ read: true })
        .where(and(eq(notifications.id, id), eq(notifications.userId, userId)))
        .returning();
      return row;
    },
  };
}
export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
