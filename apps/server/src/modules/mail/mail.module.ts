import type { Logger } from 'pino';
import type { Config } from '../../config';
import type { JobQueue } from '../../jobs/queue';
import type { Mailer } from '../../ports/mail/mailer';
import { createOutboxMailer } from '../../ports/mail/outbox-mailer';
import { createOutboxRepository } from '../../ports/mail/outbox.repository';
import { createSmtpMailer } from '../../ports/mail/smtp-mailer';
import { createMailService } from './mail.service';
import { sendEmailJob } from './send-email.job';

export interface MailModuleDeps {
  db: Parameters<typeof createOutboxRepository>[0];
  config: Pick<Config, 'smtpUrl' | 'mailFrom'>;
  log: Logger;
  queue: JobQueue;
}

/**
 * Outgoing email: queued by every module, sent by the send-email job through SMTP (SMTP_URL) or
 * kept in the outbox that the admin area shows.
 */
export function createMailModule({ db, config, log, queue }: MailModuleDeps) {
  const outbox = createOutboxRepository(db);
  const mailer: Mailer = config.smtpUrl
    ? createSmtpMailer(config.smtpUrl, config.mailFrom)
    : createOutboxMailer(outbox, log);
  const emailJob = sendEmailJob(mailer);
  return {
    mailer,
    outbox,
    mail: createMailService(queue, emailJob),
    jobs: [emailJob],
    close: async () => {
      await mailer.close?.();
    },
  };
}
