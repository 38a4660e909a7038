import { z } from 'zod';
import { defineJob } from '../../jobs/queue';
import type { Mailer } from '../../ports/mail/mailer';

export const sendEmailPayload = z.object({
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
});

/** Delivers one rendered message; retried with backoff when the mail server is down. */
export function sendEmailJob(mailer: Mailer) {
  return defineJob({
    name: 'send-email',
    payload: sendEmailPayload,
    retry: { limit: 5, delaySeconds: 30 },
    async handler(message, { log }) {
      await mailer.send(message);
      log.debug({ transport: mailer.kind }, 'mail sent');
    },
  });
}
export type SendEmailJob = ReturnType<typeof sendEmailJob>;
