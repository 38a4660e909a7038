import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import {
  errorCodeForStatus,
  errorStatus,
  MAX_JSON_BODY_BYTES,
  type ErrorBody,
  type ErrorCode,
} from '@mi/contracts/errors';
import { AppError } from './app-error';

/**
 * The one error handler: failure bodies are `{ error, code }`, and the HTTP status is always the
 * one the error table (`packages/contracts/src/errors.ts`) gives the code. 4xx messages are written
 * for users; anything unexpected becomes a generic 500 that carries the request id for support.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const send = (code: ErrorCode, error: string, extra: Omit<ErrorBody, 'error' | 'code'> = {}) =>
      reply.status(errorStatus[code]).send({ error, code, ...extra } satisfies ErrorBody);

    if (err instanceof AppError) {
      return send(err.code, err.message, err.details ? { details: err.details } : {});
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const details = err.validation.map((v) => ({
        path: [err.validationContext, ...String(v.instancePath).split('/').filter(Boolean)].join('.'),
        message: v.message ?? 'Invalid value',
      }));
      const first = details[0];
      return send(
        'VALIDATION_ERROR',
        first
          ? first.path.includes('.')
            ? `${first.path.split('.').slice(1).join('.')}: ${first.message}`
            : first.message
          : 'Invalid request',
        { details },
      );
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(
          'PAYLOAD_TOO_LARGE',
          `Request body is larger than the ${MAX_JSON_BODY_BYTES / 1024} KiB limit`,
        );
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send('BAD_REQUEST', 'Request body is not valid JSON');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type; send application/json');
    }
    if (err.statusCode === 429)
      return send('RATE_LIMITED', 'Too many requests. Please wait a moment and try again.');
    if (err instanceof SyntaxError && (err.statusCode ?? 500) === 400) {
      return send('BAD_REQUEST', 'Request body is not valid JSON');
    }
    if (
      err.statusCode &&
      err.statusCode >= 400 &&
      err.statusCode < 500 &&
      !isResponseSerializationError(err)
    ) {
      return send(errorCodeForStatus(err.statusCode), err.message);
    }
    req.log.error({ err }, 'request failed');
    return send('INTERNAL', 'Something went wrong on our side. Please try again.', { requestId: req.id });
  });
}
