import type { AdminProvider, ProviderInput } from '@mi/contracts/sharing';
import type { VendorConfigResponse } from '@mi/contracts/vendors';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useAdminMutation } from '../../shared/api/admin-mutation';
import { changeRecord, recordUrl, type RecordChange } from '../../shared/api/record-changes';

type Answer = { message: string; data: AdminProvider };
const base = '/api/admin/providers';
const one = (id: string) => recordUrl(base, id);

export type ProviderChange =
  RecordChange<ProviderInput> | { kind: 'unlink'; id: string } | { kind: 'link'; id: string; email: string };

/** POST/PUT /api/admin/providers…: create, edit, retire, restore, link to or unlink from an account. */
export function changeProvider(change: ProviderChange): Promise<Answer> {
  switch (change.kind) {
    case 'create':
    case 'update':
    case 'retire':
    case 'restore':
      return changeRecord<Answer, ProviderInput>(base, change);
    case 'link':
      return api.put<Answer>(`${one(change.id)}/link`, { email: change.email });
    case 'unlink':
      return api.delete<Answer>(`${one(change.id)}/link`);
  }
}

export function useChangeProvider() {
  return useAdminMutation(changeProvider, [
    queryKeys.admin.providers,
    queryKeys.providers,
    queryKeys.userProviders,
  ]);
}

export type VendorChange =
  { kind: 'set'; id: string; webhookUrl: string } | { kind: 'rotate' | 'remove'; id: string };

/**
 * PUT/POST/DELETE /api/admin/providers/{id}/vendor…: an external AI vendor's webhook and signing
 * secret. The answer carries `secret` only when one was just made (shown once).
 */
export function changeVendor(change: VendorChange): Promise<VendorConfigResponse> {
  switch (change.kind) {
    case 'set':
      return api.put<VendorConfigResponse>(`${one(change.id)}/vendor`, { webhookUrl: change.webhookUrl });
    case 'rotate':
      return api.post<VendorConfigResponse>(`${one(change.id)}/vendor/secret`);
    case 'remove':
      return api.delete<VendorConfigResponse>(`${one(change.id)}/vendor`);
  }
}

export function useChangeVendor() {
  return useAdminMutation(changeVendor, [queryKeys.admin.providers]);
}
