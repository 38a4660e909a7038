import { desc } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { mailOutbox } from '../../db/schema/index';
import type { MailMessage } from './mailer';

export type OutboxRow = typeof mailOutbox.$inferSelect;

/** The in-app outbox: mail kept in the database when no SMTP server is configured. */
export function createOutboxRepository(db: Db) {
  return {
    async keep(message: MailMessage): Promise<void> {
      await db.insert(mailOutbox).values(message);
    },

    /** The most recent messages, newest first. */
    latest(limit: number): Promise<OutboxRow[]> {
      return db.select().from(mailOutbox).orderBy(desc(mailOutbox.createdAt)).limit(limit);
    },
  };
}
export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
