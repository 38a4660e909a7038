import { errorStatus, type ErrorCode } from '@mi/contracts/errors';

/** Errors the API reports on purpose. 4xx messages are shown to users, so keep them safe. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Array<{ path: string; message: string }>,
  ) {
    super(message);
    this.status = errorStatus[code];
  }
}

export const notFound = (what = 'Not found') => new AppError('NOT_FOUND', what);
