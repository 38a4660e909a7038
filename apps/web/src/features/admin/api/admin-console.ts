import type {
  AdminHealth,
  AdminUser,
  AuditEventDto,
  AuditQuery,
  ReauthBody,
  ReauthResponse,
} from '@mi/contracts/admin';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, apiRaw } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../components/reauth-provider';

export interface AdminUserPage {
  data: AdminUser[];
  page: number;
  limit: number;
  total: number;
}
export interface AuditPage {
  data: AuditEventDto[];
  page: number;
  limit: number;
  hasMore: boolean;
}
export type AuditFilters = Partial<Omit<AuditQuery, 'page' | 'limit'>>;

export const USERS_PAGE_SIZE = 20;
export const AUDIT_PAGE_SIZE = 50;

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

/** GET /api/admin/audit: one page of the audit log. */
export function useAuditLog(filters: AuditFilters, page: number) {
  return useQuery({
    queryKey: queryKeys.admin.audit(filters, page),
    queryFn: ({ signal }) =>
      api.get<AuditPage>('/api/admin/audit', {
        signal,
        params: { ...filters, page, limit: AUDIT_PAGE_SIZE },
      }),
    placeholderData: keepPreviousData,
  });
}

/** GET /api/admin/health. */
export function useAdminHealth() {
  return useQuery({
    queryKey: queryKeys.admin.health,
    queryFn: ({ signal }) => api.get<AdminHealth>('/api/admin/health', { signal }),
  });
}

/** POST /api/admin/reauth: the password, then (with a second factor) the code. */
export function reauthenticate(body: ReauthBody): Promise<ReauthResponse> {
  return api.post<ReauthResponse>('/api/admin/reauth', body);
}

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

/** POST /api/admin/jobs/{id}/retry. */
export function useRetryJob() {
  const queryClient = useQueryClient();
  const withReauth = useReauth();
  return useMutation({
    mutationFn: (id: string) =>
      withReauth(() => api.post<{ message: string }>(`/api/admin/jobs/${encodeURIComponent(id)}/retry`)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin.failedJobs }),
  });
}

/** GET /api/admin/audit/export: the filtered log as a CSV file, saved by the browser. */
export function useExportAudit() {
  const withReauth = useReauth();
  return useMutation({
    mutationFn: async (filters: AuditFilters) => {
      const res = await withReauth(() =>
        apiRaw('GET', '/api/admin/audit/export', { params: filters, headers: { Accept: 'text/csv' } }),
      );
      const blob = await res.blob();
      const name =
        /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'audit-log.csv';
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  });
}
