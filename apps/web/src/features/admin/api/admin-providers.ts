import type { AdminProvider, ProviderInput } from '@mi/contracts/sharing';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../components/reauth-provider';

type Answer = { message: string; data: AdminProvider };
const base = '/api/admin/providers';
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;

/** GET /api/admin/providers: the whole directory, retired entries last (admins only). */
export function useAdminProviders() {
  return useQuery({
    queryKey: queryKeys.admin.providers,
    queryFn: ({ signal }) => api.get<{ data: AdminProvider[] }>(base, { signal }),
    select: (res) => res.data,
  });
}

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
