import { api } from '@/lib/api-client';

/** POST /api/auth/refresh: rotates the session (cookies) and restarts the server's idle clock. */
export function refreshSession(): Promise<{ message: string }> {
  return api.post<{ message: string }>('/api/auth/refresh');
}
