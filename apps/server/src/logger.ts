import type { FastifyRequest } from 'fastify';
import pino, { type LoggerOptions } from 'pino';

/** Anything that could carry a credential or a code is removed before a line is written. */
const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["upload-metadata"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.confirmPassword',
  '*.authToken',
  '*.refreshToken',
  '*.accessToken',
  '*.token',
  '*.code',
  '*.mfaSecret',
  '*.mfaToken',
  '*.captcha',
  '*.credential',
  '*.challenge',
];

/** Query values may be tokens (reset links, viewer credentials): log only the parameter names. */
export function safeUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const names = [...new URLSearchParams(url.slice(q + 1)).keys()];
  return `${url.slice(0, q)}?${names.map((n) => `${n}=…`).join('&')}`;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    serializers: {
      req(req: FastifyRequest) {
        if (typeof req?.url !== 'string') return req;
        return { method: req.method, url: safeUrl(req.url), remoteAddress: req.ip };
      },
    },
  };
}

export function createLogger(level: string) {
  return pino(loggerOptions(level));
}
