import type { AdminService, ServiceInput } from '@mi/contracts/catalogue-admin';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../../shared/components/reauth-provider';

type Answer = { message: string; data: AdminService };
const base = '/api/admin/services';
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;
const offer = (id: string, providerId: string) => `${one(id)}/offers/${encodeURIComponent(providerId)}`;

/** GET /api/admin/services: every service with all its offers, retired ones last (admins only). */
export function useAdminServices() {
  return useQuery({
    queryKey: queryKeys.admin.services,
    queryFn: ({ signal }) => api.get<{ data: AdminService[] }>(base, { signal }),
    select: (res) => res.data,
  });
}

export type ServiceChange =
  | { kind: 'create'; input: ServiceInput }
  | { kind: 'update'; id: string; input: ServiceInput }
  | { kind: 'retire' | 'restore'; id: string }
  | { kind: 'add-offer'; id: string; providerId: string; price: number }
  | {
      kind: 'reprice';
      id: string;
      providerId: string;
      price: number;
      turnaround?: string;
      modalities?: string[];
    }
  | { kind: 'retire-offer' | 'restore-offer'; id: string; providerId: string };

/** POST/PUT /api/admin/services…: services and their offers (price, turnaround, modalities; retire, restore). */
export function changeService(change: ServiceChange): Promise<Answer> {
  switch (change.kind) {
    case 'create':
      return api.post<Answer>(base, change.input);
    case 'update':
      return api.put<Answer>(one(change.id), change.input);
    case 'retire':
    case 'restore':
      return api.post<Answer>(`${one(change.id)}/${change.kind}`);
    case 'add-offer':
      return api.post<Answer>(`${one(change.id)}/offers`, {
        providerId: change.providerId,
        price: change.price,
      });
    case 'reprice':
      return api.put<Answer>(offer(change.id, change.providerId), {
        price: change.price,
        ...(change.turnaround !== undefined ? { turnaround: change.turnaround } : {}),
        ...(change.modalities !== undefined ? { modalities: change.modalities } : {}),
      });
    case 'retire-offer':
      return api.post<Answer>(`${offer(change.id, change.providerId)}/retire`);
    case 'restore-offer':
      return api.post<Answer>(`${offer(change.id, change.providerId)}/restore`);
  }
}

export function useChangeService() {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: (change: ServiceChange) => withReauth(() => changeService(change)),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.admin.services }),
        queryClient.invalidateQueries({ queryKey: queryKeys.services }),
      ]),
  });
}
