import type { AdminService, ServiceInput } from '@mi/contracts/catalogue-admin';
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useAdminMutation } from '../../shared/api/admin-mutation';
import { changeRecord, recordUrl, type RecordChange } from '../../shared/api/record-changes';

type Answer = { message: string; data: AdminService };
const base = '/api/admin/services';
const offer = (id: string, providerId: string) =>
  `${recordUrl(base, id)}/offers/${encodeURIComponent(providerId)}`;

/** GET /api/admin/services: every service with all its offers, retired ones last (admins only). */
export function useAdminServices() {
  return useQuery({
    queryKey: queryKeys.admin.services,
    queryFn: ({ signal }) => api.get<{ data: AdminService[] }>(base, { signal }),
    select: (res) => res.data,
  });
}

export type ServiceChange =
  | RecordChange<ServiceInput>
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
    case 'update':
    case 'retire':
    case 'restore':
      return changeRecord<Answer, ServiceInput>(base, change);
    case 'add-offer':
      return api.post<Answer>(`${recordUrl(base, change.id)}/offers`, {
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
  return useAdminMutation(changeService, [queryKeys.admin.services, queryKeys.services]);
}
