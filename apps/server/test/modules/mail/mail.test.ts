import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { z } from 'zod';
import { defineJob } from '../../../src/jobs/queue';
import {
  duplicateRegistrationEmail,
  escapeHtml,
  refundReceiptEmail,
  welcomeEmail,
} from '../../../src/modules/mail/templates';
import { extractLinks } from '../../../src/ports/mail/mailer';
import { createSmtpMailer } from '../../../src/ports/mail/smtp-mailer';
import { createTestContext, eventually, registerPatient, type TestContext } from '../../helpers/test-app';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on a free port that keeps what it receives. */
async function startSmtpServer() {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;
  return {
    received,
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('templates', () => {
  it('escape every user-supplied value in HTML and keep the text part plain', () => {
    const mail = welcomeEmail({
      name: '<img src=x onerror=alert(1)> "Bob" & Co',
      appUrl: 'http://localhost:3000',
    });
    expect(mail.html).not.toContain('<img src=x');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;Bob&quot; &amp; Co');
    expect(mail.text).toContain('<img src=x onerror=alert(1)> "Bob" & Co');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });

  it('set out a receipt line by line, escaped in HTML', () => {
    const mail = refundReceiptEmail({
      serviceName: 'Expert <Review>',
      amount: '$199.99',
      card: 'Visa •••• 4242',
      reference: 're_1',
      reason: 'Declined by the provider & refunded',
      date: '25 Nov 2026',
      link: 'http://localhost:3000/services/purchased',
    });
    expect(mail.text).toContain('Service: Expert <Review>\nAmount refunded: $199.99\nCard: Visa •••• 4242');
    expect(mail.text).toContain(
      'Reason: Declined by the provider & refunded\nReference: re_1\nDate: 25 Nov 2026',
    );
    expect(mail.html).toContain('<td>Expert &lt;Review&gt;</td>');
    expect(mail.html).toContain('<td>Declined by the provider &amp; refunded</td>');
    expect(mail.html.match(/<tr>/g)).toHaveLength(6);
  });

  it('lists the links of a message for the outbox log', () => {
    const mail = duplicateRegistrationEmail({ appUrl: 'http://localhost:3000' });
    expect(extractLinks(mail.text)).toEqual([
      'http://localhost:3000/login',
      'http://localhost:3000/forgot-password',
    ]);
  });
});

describe('SMTP adapter', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
  });

  it('delivers HTML and text parts to a real SMTP server', async () => {
    const mailer = createSmtpMailer(smtp.url, 'Medical Imaging <no-reply@imaging.test>');
    await mailer.send({
      to: 'pat@example.com',
      subject: 'Hello there',
      text: 'plain body',
      html: '<p>html body</p>',
    });
    await mailer.close?.();
    const msg = smtp.received.at(-1);
    expect(msg?.to).toEqual(['pat@example.com']);
    expect(msg?.from).toBe('no-reply@imaging.test');
    expect(msg?.raw).toContain('Subject: Hello there');
    expect(msg?.raw).toContain('plain body');
    expect(msg?.raw).toContain('<p>html body</p>');
  });

  it('is used by the app when SMTP_URL is set: registration mail arrives over SMTP, not in the outbox', async () => {
    const ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_FROM: 'no-reply@imaging.test' });
    try {
      expect(ctx.services.mailer.kind).toBe('smtp');
      const res = await registerPatient(ctx, 'smtp-user@example.com');
      expect(res.statusCode).toBe(201);
      const msg = await eventually(async () =>
        smtp.received.find((m) => m.to.includes('smtp-user@example.com')),
      );
      expect(msg.raw).toContain('Welcome to Medical Imaging');
    } finally {
      await ctx.close();
    }
  });
});

describe('job queue', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('retries a failing job with backoff and keeps it, with its error, once retries run out', async () => {
    let attempts = 0;
    const flaky = defineJob({
      name: 'always-fails-test',
      payload: z.object({ n: z.number() }),
      retry: { limit: 1, delaySeconds: 1 },
      async handler() {
        attempts++;
        throw new Error('mail server unreachable');
      },
    });
    // A second queue on the same database, as a separate worker process would have.
    const { startJobQueue } = await import('../../../src/jobs/queue');
    const { createLogger } = await import('../../../src/logger');
    const queue = await startJobQueue(ctx.services.database, createLogger('silent'));
    try {
      await queue.register([flaky]);
      await queue.work();
      const id = await queue.send(flaky, { n: 1 });
      const failed = await eventually(
        async () => (await ctx.services.queue.listFailed()).find((j) => j.id === id),
        20_000,
      );
      expect(failed).toMatchObject({
        name: 'always-fails-test',
        state: 'failed',
        retryCount: 1,
        error: 'mail server unreachable',
      });
      expect(attempts).toBe(2);
    } finally {
      await queue.stop();
    }
  });

  it('refuses a payload that does not match the job schema before queueing it', async () => {
    const job = defineJob({
      name: 'typed-test',
      payload: z.object({ n: z.number() }),
      retry: { limit: 0, delaySeconds: 1 },
      async handler() {},
    });
    await expect(ctx.services.queue.send(job, { n: 'x' } as unknown as { n: number })).rejects.toThrow();
  });
});
