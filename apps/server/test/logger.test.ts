import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions, safeUrl } from '../src/logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { log: pino(loggerOptions('info'), stream), text: () => lines.join('') };
}

describe('logs', () => {
  it('redact authorization headers, cookies, passwords, codes and tokens', () => {
    const { log, text } = capture();
    log.info({
      req: { headers: { authorization: 'Bearer SECRET-BEARER', cookie: 'authToken=SECRET-COOKIE' } },
      res: { headers: { 'set-cookie': 'authToken=SECRET-SET' } },
      body: {
        password: 'SECRET-PASS',
        code: '123456',
        authToken: 'SECRET-AUTH',
        refreshToken: 'SECRET-REFRESH',
        captcha: 'SECRET-CAPTCHA',
      },
    });
    const out = text();
    expect(out).not.toMatch(/SECRET|123456/);
    expect(out).toContain('[redacted]');
  });

  it('drop query values, which may carry tokens', () => {
    expect(safeUrl('/reset-password?email=a@b.c&challenge=abc123')).toBe(
      '/reset-password?email=…&challenge=…',
    );
    expect(safeUrl('/api/health')).toBe('/api/health');
  });
});
