import type { AuditEventDto, AuditQuery } from '@mi/contracts/admin';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { api, apiRaw } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useReauth } from '../../shared/components/reauth-provider';

export interface AuditPage {
  data: AuditEventDto[];
  page: number;
  limit: number;
  hasMore: boolean;
}
export type AuditFilters = Partial<Omit<AuditQuery, 'page' | 'limit'>>;

export const AUDIT_PAGE_SIZE = 50;

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
