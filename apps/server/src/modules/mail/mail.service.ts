import type { JobQueue } from '../../jobs/queue';
import type { SendEmailJob } from './send-email.job';
import type { MailContent } from './templates';

/** Queues an email; the send-email job delivers it (outbox or SMTP) with retries. */
export interface MailService {
  send(to: string, content: MailContent): Promise<void>;
}

export function createMailService(queue: JobQueue, job: SendEmailJob): MailService {
  return {
    async send(to, content) {
      await queue.send(job, { to, ...content });
    },
  };
}
