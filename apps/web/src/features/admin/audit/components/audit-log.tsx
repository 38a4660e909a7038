import { Download, ScrollText } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { OpenEndedPager } from '@/components/list/list-pager';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { EmptyState } from '@/components/empty-state';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useAuditLog, useExportAudit, type AuditFilters } from '../api/audit-log';
import { ReauthCancelled } from '../../shared/components/reauth-provider';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Draft {
  userId: string;
  studyId: string;
  action: string;
  from: string;
  to: string;
}
const EMPTY: Draft = { userId: '', studyId: '', action: '', from: '', to: '' };

/** Local calendar days to the API's instants: from the start of `from` to the end of `to`. */
function toFilters(d: Draft): AuditFilters {
  return {
    userId: d.userId.trim() || undefined,
    studyId: d.studyId.trim() || undefined,
    action: d.action.trim() || undefined,
    from: d.from ? new Date(`${d.from}T00:00:00`).toISOString() : undefined,
    to: d.to ? new Date(`${d.to}T23:59:59.999`).toISOString() : undefined,
  };
}

/** The audit log: filter by user, study, action and dates, page through, export CSV. */
export function AuditLog() {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [filters, setFilters] = useState<AuditFilters>({});
  const [page, setPage] = useState(1);
  const [invalid, setInvalid] = useState<string | null>(null);
  const log = useAuditLog(filters, page);
  const exporter = useExportAudit();
  const rows = log.data?.data ?? [];

  function apply(e: FormEvent) {
    e.preventDefault();
    if (draft.userId.trim() && !UUID.test(draft.userId.trim())) {
      setInvalid('Enter a user id (as shown in Users or in the log)');
      return;
    }
    if (draft.action.trim() && !/^[a-z0-9_.]+$/i.test(draft.action.trim())) {
      setInvalid('Actions are letters, digits, dots and underscores (for example auth.login)');
      return;
    }
    setInvalid(null);
    setFilters(toFilters(draft));
    setPage(1);
  }

  const field = (key: keyof Draft, label: string, props: Partial<React.ComponentProps<'input'>> = {}) => (
    <div className="grid gap-1">
      <Label htmlFor={`audit-${key}`}>{label}</Label>
      <Input
        id={`audit-${key}`}
        value={draft[key]}
        onChange={(e) => setDraft((d) => ({ ...d, [key]: e.target.value }))}
        {...props}
      />
    </div>
  );

  return (
    <Card>
      <CardHeader className="flex-row items-start justify-between gap-2 space-y-0">
        <div>
          <CardTitle>Audit log</CardTitle>
          <CardDescription>Every sign-in, access to patient data and change, newest first.</CardDescription>
        </div>
        <Button
          variant="outline"
          size="sm"
          disabled={exporter.isPending}
          onClick={() =>
            exporter.mutate(filters, {
              onError: (err) =>
                toastError(err instanceof ReauthCancelled ? err.message : errorMessage(err, 'Export failed')),
            })
          }
        >
          <Download aria-hidden="true" /> Export CSV
        </Button>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form onSubmit={apply} noValidate className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
          {field('userId', 'User id', { placeholder: 'Actor or target', maxLength: 36 })}
          {field('studyId', 'Study id', { maxLength: 100 })}
          {field('action', 'Action', { placeholder: 'e.g. auth.login or user', maxLength: 100 })}
          {field('from', 'From', { type: 'date' })}
          {field('to', 'To', { type: 'date' })}
          <div className="flex items-end gap-2">
            <Button type="submit">Apply filters</Button>
            <Button
              type="button"
              variant="ghost"
              onClick={() => {
                setDraft(EMPTY);
                setFilters({});
                setPage(1);
                setInvalid(null);
              }}
            >
              Clear
            </Button>
          </div>
          {invalid && (
            <p role="alert" className="text-sm text-destructive sm:col-span-2 lg:col-span-3">
              {invalid}
            </p>
          )}
        </form>
        <ListStatus
          query={log}
          count={rows.length}
          error="The audit log could not be loaded"
          empty={<EmptyState icon={ScrollText} title="No audit events found" />}
        />
        {listStatus(log, rows.length) === null && (
          <ul className="grid gap-2" aria-label="Audit events">
            {rows.map((r) => (
              <li key={r.id} className="rounded-md border p-3 text-sm">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-mono font-medium">{r.action}</span>
                  <Badge variant={r.outcome === 'success' ? 'secondary' : 'destructive'}>{r.outcome}</Badge>
                  <time className="text-xs text-muted-foreground" dateTime={r.at}>
                    {formatDateTime(r.at)}
                  </time>
                </div>
                <dl className="mt-1 grid gap-x-3 text-xs text-muted-foreground sm:grid-cols-[auto_1fr]">
                  <dt>Actor</dt>
                  <dd className="break-all font-mono">
                    {r.actorId ?? '—'}
                    {r.actorRole ? ` (${r.actorRole})` : ''}
                  </dd>
                  {r.targetType && (
                    <>
                      <dt>Target</dt>
                      <dd className="break-all font-mono">
                        {r.targetType} {r.targetId ?? ''}
                      </dd>
                    </>
                  )}
                  {r.ip && (
                    <>
                      <dt>IP</dt>
                      <dd className="font-mono">{r.ip}</dd>
                    </>
                  )}
                  {r.details && (
                    <>
                      <dt>Details</dt>
                      <dd className="break-all font-mono">{JSON.stringify(r.details)}</dd>
                    </>
                  )}
                </dl>
              </li>
            ))}
          </ul>
        )}
        <OpenEndedPager
          page={page - 1}
          hasMore={log.data?.hasMore ?? false}
          onPage={(next) => setPage(next + 1)}
          label="Audit log pages"
        />
      </CardContent>
    </Card>
  );
}
