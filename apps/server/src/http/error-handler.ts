import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { MAX_JSON_BODY_BYTES, type ErrorBody } from '@mi/contracts/errors';
import { AppError } from './app-error';

/**
 * The one error handler: failure bodies are `{ error, code }`. 4xx messages are written for users;
 * anything unexpected becomes a generic 500 that carries the request id for support.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const send = (status: number, body: ErrorBody) => reply.status(status).send(body);

    if (err instanceof AppError) {
      return send(err.status, {
        error: err.message,
        code: err.code,
        ...(err.details ? { details: err.details } : {}),
      });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const details = err.validation.map((v) => ({
        path: [err.validationContext, ...String(v.instancePath).split('/').filter(Boolean)].join('.'),
        message: v.message ?? 'Invalid value',
      }));
      const first = details[0];
      return send(400, {
        error: first
          ? first.path.includes('.')
            ? `${first.path.split('.').slice(1).join('.')}: ${first.message}`
            : first.message
          : 'Invalid request',
        code: 'VALIDATION_ERROR',
        details,
      });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(400, {
          error: `Request body is larger than the ${MAX_JSON_BODY_BYTES / 1024} KiB limit`,
          code: 'PAYLOAD_TOO_LARGE',
        });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(400, { error: 'Request body is not valid JSON', code: 'BAD_REQUEST' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(415, {
          error: 'Unsupported content type; send application/json',
          code: 'UNSUPPORTED_MEDIA_TYPE',
        });
    }
    if (err.statusCode === 429) {
      return send(429, {
        error: 'Too many requests. Please wait a moment and try again.',
        code: 'RATE_LIMITED',
      });
    }
    if (err instanceof SyntaxError && (err.statusCode ?? 500) === 400) {
      return send(400, { error: 'Request body is not valid JSON', code: 'BAD_REQUEST' });
    }
    if (
      err.statusCode &&
      err.statusCode >= 400 &&
      err.statusCode < 500 &&
      !isResponseSerializationError(err)
    ) {
      return send(err.statusCode, {
        error: err.message,
        code: err.statusCode === 404 ? 'NOT_FOUND' : 'BAD_REQUEST',
      });
    }
    req.log.error({ err }, 'request failed');
    return send(500, {
      error: 'Something went wrong on our side. Please try again.',
      code: 'INTERNAL',
      requestId: req.id,
    });
  });
}
