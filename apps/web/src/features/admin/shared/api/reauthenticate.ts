import type { ReauthBody, ReauthResponse } from '@mi/contracts/admin';
import { api } from '@/lib/api-client';

/** POST /api/admin/reauth: the password, then (with a second factor) the code. */
export function reauthenticate(body: ReauthBody): Promise<ReauthResponse> {
  return api.post<ReauthResponse>('/api/admin/reauth', body);
}
