import type { Logger } from 'pino';
import { extractLinks, type Mailer } from './mailer';
import type { OutboxRepository } from './outbox.repository';

/**
 * Without SMTP, messages are kept in the database for admins to read, and the log shows who
 * they went to and their links, so a local user can follow a sign-up or reset link.
 */
export function createOutboxMailer(outbox: Pick<OutboxRepository, 'keep'>, log: Logger): Mailer {
  return {
    kind: 'outbox',
    async send(message) {
      await outbox.keep(message);
      log.info(
        { outbox: { to: message.to, subject: message.subject, links: extractLinks(message.text) } },
        'mail kept in outbox',
      );
    },
  };
}
