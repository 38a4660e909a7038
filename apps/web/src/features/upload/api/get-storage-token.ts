import type { StorageToken } from '@mi/contracts/studies';
import { api } from '@/lib/api-client';

/**
 * GET /api/storage/token: a short-lived credential to write `{userId}/{uuid}/study.zip`. Never
 * cached in the query cache: each upload (and each refresh near expiry) asks for a fresh one.
 */
export function getStorageToken(signal?: AbortSignal): Promise<StorageToken> {
  return api.get<StorageToken>('/api/storage/token', { signal });
}
