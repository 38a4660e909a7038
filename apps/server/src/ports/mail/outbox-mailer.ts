import type { Logger } from 'pino';
import type { Db } from '../../db/client';
import { mailOutbox } from '../../db/schema/index';
import { extractLinks, type Mailer } from './mailer';

/**
 * Without SMTP, messages are kept in the database for admins to read, and the log shows who
 * they went to and their links, so a local user can follow a sign-up or reset link.
 */
export function createOutboxMailer(db: Db, log: Logger): Mailer {
  return {
    kind: 'outbox',
    async send(message) {
      await db.insert(mailOutbox).values(message);
      log.info(
        { outbox: { to: message.to, subject: message.subject, links: extractLinks(message.text) } },
        'mail kept in outbox',
      );
    },
  };
}
