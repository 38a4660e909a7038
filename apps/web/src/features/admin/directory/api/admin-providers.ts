import type { AdminProvider, ProviderInput } from '@mi/contracts/sharing';
import type { VendorConfigResponse } from '@mi/contracts/vendors';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../../shared/components/reauth-provider';

type Answer = { message: string; data: AdminProvider };
const base = '/api/admin/providers';
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;

export type ProviderChange =
  | { kind: 'create'; input: ProviderInput }
  | { kind: 'update'; id: string; input: ProviderInput }
  | { kind: 'retire' | 'restore' | 'unlink'; id: string }
  | { kind: 'link'; id: string; email: string };

/** POST/PUT /api/admin/providers…: create, edit, retire, restore, link to or unlink from an account. */
export function changeProvider(change: ProviderChange): Promise<Answer> {
  switch (change.kind) {
    case 'create':
      return api.post<Answer>(base, change.input);
    case 'update':
      return api.put<Answer>(one(change.id), change.input);
    case 'retire':
    case 'restore':
      return api.post<Answer>(`${one(change.id)}/${change.kind}`);
    case 'link':
      return api.put<Answer>(`${one(change.id)}/link`, { email: change.email });
    case 'unlink':
      return api.delete<Answer>(`${one(change.id)}/link`);
  }
}

export function useChangeProvider() {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: (change: Parameters<typeof changeProvider>[0]) => withReauth(() => changeProvider(change)),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.admin.providers }),
        queryClient.invalidateQueries({ queryKey: queryKeys.providers }),
        queryClient.invalidateQueries({ queryKey: queryKeys.userProviders }),
      ]),
  });
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
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: (change: VendorChange) => withReauth(() => changeVendor(change)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin.providers }),
  });
}
