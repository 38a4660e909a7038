import type { ErrorCode } from '@mi/contracts/errors';

/**
 * The one way the SPA talks to the API. Auth lives in httpOnly cookies, so every request is sent
 * with `credentials: 'include'` and no token is ever read or stored in JS.
 */

/**
 * A failed API call. `message` is the default failure text (see throwIfNotOk); `serverMessage` is
 * the body's `error` field.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    /** HTTP status, or 0 when the request never got a response. */
    readonly status: number,
    message: string,
    /** The `error` field of the failure body: safe to show to the user. */
    readonly serverMessage: string | undefined,
    /** The `code` field of the failure body (contracts/errors.ts ErrorCode). */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

type QueryValue = string | number | boolean | null | undefined;
export type QueryParams = Record<string, QueryValue>;

export interface RequestOptions {
  params?: QueryParams;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export function buildUrl(path: string, params?: QueryParams): string {
  if (!params) return path;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const qs = search.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

function parseErrorBody(text: string): { error?: string; code?: string } {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object') {
      const { error, code } = body as Record<string, unknown>;
      return {
        error: typeof error === 'string' ? error : undefined,
        code: typeof code === 'string' ? code : undefined,
      };
    }
  } catch {
    // Not JSON (for example a proxy's HTML error page): there is no server message to show.
  }
  return {};
}

/** Throws an ApiError for a non-2xx response: 'status: status text' from 500 up, else 'status: body text'. */
async function throwIfNotOk(res: Response): Promise<void> {
  if (res.ok) return;
  const text = await res.text().catch(() => '');
  const { error, code } = parseErrorBody(text);
  const message =
    res.status >= 500 ? `${res.status}: ${res.statusText}` : `${res.status}: ${text || res.statusText}`;
  throw new ApiError(res.status, message, error, code);
}

/** Sends a request under /api and returns the raw Response after the failure check. */
export async function apiRaw(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) {
    body = options.body;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(buildUrl(path, options.params), {
      method,
      headers,
      body,
      credentials: 'include',
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'Network error: the server could not be reached.', undefined, undefined);
  }
  await throwIfNotOk(res);
  return res;
}

async function readJson<T>(res: Response): Promise<T> {
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function apiRequest<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
  return readJson<T>(await apiRaw(method, path, options));
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'body'>) => apiRequest<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('POST', path, { ...options, body }),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('PUT', path, { ...options, body }),
  delete: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('DELETE', path, { ...options, body }),
};

/** The text to show a user for a failure: the server's `error` field, else the fallback. */
export function errorMessage(err: unknown, fallback = 'An error occurred'): string {
  if (err instanceof ApiError) return err.serverMessage ?? (err.status === 0 ? err.message : fallback);
  return fallback;
}

/**
 * Whether `err` is a failed API call, and with `codes` one answered with one of those codes
 * (contracts/errors.ts): a failure is told apart by its code, never by its text.
 */
export function isApiError(err: unknown, ...codes: ErrorCode[]): err is ApiError {
  return err instanceof ApiError && (codes.length === 0 || codes.some((code) => err.code === code));
}
