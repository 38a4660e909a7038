/**
 * Who sent a request, as services record it (audit entries, throttles, sign-in records). Built from
 * the HTTP request by `requestMeta` in http/auth-hook.ts; jobs and seeds pass a fixed one.
 */
export interface RequestMeta {
  requestId: string;
  ip: string;
  userAgent?: string;
}
