import type { AdminUser } from '@mi/contracts/admin';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../../shared/components/reauth-provider';

export interface AdminUserPage {
  data: AdminUser[];
  page: number;
  limit: number;
  total: number;
}

export const USERS_PAGE_SIZE = 20;

/** GET /api/admin/users: accounts by name or email, newest first. */
export function adminUsersQueryOptions(q: string, page: number) {
  return queryOptions({
    queryKey: queryKeys.admin.users.list(q, page),
    queryFn: ({ signal }) =>
      api.get<AdminUserPage>('/api/admin/users', { signal, params: { q, page, limit: USERS_PAGE_SIZE } }),
    placeholderData: keepPreviousData,
  });
}
export const useAdminUsers = (q: string, page: number) => useQuery(adminUsersQueryOptions(q, page));

type UserAction =
  | { kind: 'disable'; id: string; reason?: string }
  | { kind: 'enable'; id: string }
  | { kind: 'reset-mfa'; id: string }
  | { kind: 'quota'; id: string; maxStorageGB: number | null };

function runUserAction(action: UserAction) {
  const base = `/api/admin/users/${encodeURIComponent(action.id)}`;
  switch (action.kind) {
    case 'disable':
      return api.post<{ message: string; data: AdminUser }>(`${base}/disable`, { reason: action.reason });
    case 'enable':
      return api.post<{ message: string; data: AdminUser }>(`${base}/enable`);
    case 'reset-mfa':
      return api.post<{ message: string; data: AdminUser }>(`${base}/reset-mfa`);
    case 'quota':
      return api.put<{ message: string; data: AdminUser }>(`${base}/quota`, {
        maxStorageGB: action.maxStorageGB,
      });
  }
}

/** Disable, enable, reset the second factor, change the quota; a stale sign-in asks to sign in again first. */
export function useUserAction() {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: (action: UserAction) => withReauth(() => runUserAction(action)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin.users.all }),
  });
}
