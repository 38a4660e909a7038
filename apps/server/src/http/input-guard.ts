import type { FastifyInstance } from 'fastify';
import { AppError } from './app-error';

// A NUL byte or a lone UTF-16 surrogate: nothing a person types, and nothing the database can store.
// eslint-disable-next-line no-control-regex -- finding NUL bytes is the point
const UNACCEPTABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Deeper JSON than this is not checked further; no request of ours nests anywhere near it. */
const MAX_DEPTH = 32;

/** Where in `value` (a parsed path, query or JSON body) a string holds an unacceptable character, if anywhere. */
export function findUnacceptableText(value: unknown, at: string, depth = 0): string | null {
  if (typeof value === 'string') return UNACCEPTABLE.test(value) ? at : null;
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findUnacceptableText(item, `${at}.${i}`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (UNACCEPTABLE.test(key)) return at;
    const found = findUnacceptableText(item, `${at}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Refuses a request whose path parameters, query or JSON body carry a NUL byte or invalid Unicode,
 * with a 400 that names the field, before any handler (and so any database call) runs.
 */
export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    const found =
      findUnacceptableText(req.params, 'params') ??
      findUnacceptableText(req.query, 'querystring') ??
      findUnacceptableText(req.body, 'body');
    if (!found) return;
    const field = found.split('.').slice(1).join('.');
    throw new AppError(
      'VALIDATION_ERROR',
      `${field ? `${field}: ` : ''}contains a character that is not allowed (a NUL byte or invalid Unicode)`,
      [{ path: found, message: 'contains a character that is not allowed' }],
    );
  });
}
