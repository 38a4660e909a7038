import { z } from 'zod';

/**
 * Every failure body the API sends: `error` is safe to show to the user (the web app reads it as
 * `ApiError.serverMessage`).
 */
export const errorBodySchema = z.object({
  error: z.string(),
  code: z.string(),
  requestId: z.string().optional(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** One table from error code to HTTP status; the server's AppError reads it. */
export const errorStatus = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  CAPTCHA_FAILED: 400,
  REGISTRATION_FAILED: 400,
  RESET_TOKEN_INVALID: 400,
  VERIFICATION_LINK_INVALID: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  MFA_INVALID: 401,
  MFA_SESSION_EXPIRED: 401,
  GOOGLE_AUTH_FAILED: 401,
  FORBIDDEN: 403,
  ACCOUNT_INACTIVE: 403,
  /** Signed in with a one-time password: choose a new one (POST /api/auth/password) first. */
  PASSWORD_CHANGE_REQUIRED: 403,
  /**
   * An admin action after the recent-sign-in window (sign in again: password, then code), or a
   * security setting without a recent proof of identity (POST /api/auth/reauthenticate).
   */
  REAUTH_REQUIRED: 403,
  ACCOUNT_DISABLED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof errorStatus;

/** Largest JSON body the API accepts (bytes). Uploads go through tus, not JSON. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * The code for an HTTP error status that did not come with one of ours (a framework or library
 * error): the first code of that status; an unknown 4xx is a plain bad request.
 */
export function errorCodeForStatus(status: number): ErrorCode {
  const generic: Partial<Record<number, ErrorCode>> = {
    400: 'BAD_REQUEST',
    401: 'UNAUTHORIZED',
    403: 'FORBIDDEN',
  };
  const found =
    generic[status] ??
    (Object.entries(errorStatus).find(([, s]) => s === status)?.[0] as ErrorCode | undefined);
  return found ?? 'BAD_REQUEST';
}
