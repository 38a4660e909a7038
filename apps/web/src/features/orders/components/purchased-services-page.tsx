import { humanize, type Purchase } from '@mi/contracts/orders';
import { ChevronsUpDown, FileText, Upload } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { NativeSelect } from '@/components/ui/native-select';
import { formatDate } from '@/lib/format';
import { cn } from '@/lib/utils';
import { usePurchases } from '../api/get-purchases';
import { PurchaseStatusBadge } from './order-status-badge';

type Key = 'name' | 'scope' | 'date' | 'provider' | 'status';
const valueOf = (p: Purchase, key: Key): string =>
  key === 'name'
    ? p.service.name
    : key === 'scope'
      ? p.service.scope
      : key === 'date'
        ? p.createdAt
        : key === 'provider'
          ? p.provider.name
          : p.orderStatus;

/** /services/purchased: the user's paid orders with search, filters and sortable columns. */
export function PurchasedServicesPage({ userId }: { userId: string }) {
  const purchases = usePurchases(userId);
  const [search, setSearch] = useState('');
  const [scope, setScope] = useState('all');
  const [provider, setProvider] = useState('all');
  const [status, setStatus] = useState('all');
  const [sort, setSort] = useState<{ key: Key; dir: 'asc' | 'desc' }>({ key: 'date', dir: 'desc' });

  // Orders still waiting for payment are on the Billing page, not purchased yet.
  const paid = useMemo(
    () =>
      (purchases.data ?? []).filter(
        (p) => p.orderStatus !== 'awaiting_payment' && p.orderStatus !== 'cancelled',
      ),
    [purchases.data],
  );
  const distinct = (f: (p: Purchase) => string) => [...new Set(paid.map(f))].sort();
  const rows = useMemo(() => {
    const q = search.trim().toLowerCase();
    return paid
      .filter(
        (p) =>
          (scope === 'all' || p.service.scope === scope) &&
          (provider === 'all' || p.provider.name === provider) &&
          (status === 'all' || p.orderStatus === status) &&
          (!q ||
            [p.service.name, p.provider.name, p.id, humanize(p.service.scope)].some((v) =>
              v.toLowerCase().includes(q),
            )),
      )
      .sort((a, b) => {
        const c = valueOf(a, sort.key).localeCompare(valueOf(b, sort.key));
        return sort.dir === 'asc' ? c : -c;
      });
  }, [paid, search, scope, provider, status, sort]);

  const header = (key: Key, label: string) => (
    <th scope="col" className="px-3 py-2 text-left font-medium">
      <button
        type="button"
        className="inline-flex items-center gap-1 hover:underline"
        onClick={() =>
          setSort((s) => ({ key, dir: s.key === key ? (s.dir === 'asc' ? 'desc' : 'asc') : 'asc' }))
        }
      >
        {label}
        <ChevronsUpDown className="size-3.5" aria-hidden />
      </button>
    </th>
  );

  return (
    <div className="grid gap-4">
      <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <Input
          placeholder="Search purchased services..."
          aria-label="Search purchased services"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          className="sm:max-w-xs"
        />
        <NativeSelect
          aria-label="Scope filter"
          value={scope}
          onChange={(e) => setScope(e.target.value)}
          className="sm:w-44"
        >
          <option value="all">All Scopes</option>
          {distinct((p) => p.service.scope).map((s) => (
            <option key={s} value={s}>
              {humanize(s)}
            </option>
          ))}
        </NativeSelect>
        <NativeSelect
          aria-label="Provider filter"
          value={provider}
          onChange={(e) => setProvider(e.target.value)}
          className="sm:w-52"
        >
          <option value="all">All Providers</option>
          {distinct((p) => p.provider.name).map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </NativeSelect>
        <NativeSelect
          aria-label="Status filter"
          value={status}
          onChange={(e) => setStatus(e.target.value)}
          className="sm:w-52"
        >
          <option value="all">All Statuses</option>
          {distinct((p) => p.orderStatus).map((s) => (
            <option key={s} value={s}>
              {humanize(s)}
            </option>
          ))}
        </NativeSelect>
      </div>
      <Card className="overflow-x-auto">
        <table className="w-full min-w-[640px] text-sm">
          <thead className="border-b bg-muted/40">
            <tr>
              {header('name', 'Service Name')}
              {header('scope', 'Scope')}
              {header('date', 'Purchase Date')}
              {header('provider', 'Provider')}
              {header('status', 'Status')}
            </tr>
          </thead>
          <tbody>
            {purchases.isPending && (
              <tr>
                <td colSpan={5} className="px-3 py-6 text-center text-muted-foreground">
                  Loading...
                </td>
              </tr>
            )}
            {purchases.isSuccess && rows.length === 0 && (
              <tr>
                <td colSpan={5} className="px-3 py-6 text-center text-muted-foreground">
                  No purchased services found
                </td>
              </tr>
            )}
            {rows.map((p) => (
              <tr
                key={p.id}
                className={cn('border-b', p.orderStatus === 'pending_data_upload' && 'bg-blue-50')}
              >
                <td className="px-3 py-2 font-medium">
                  <span className="inline-flex items-center gap-1.5">
                    {p.orderStatus === 'pending_data_upload' && (
                      <Upload className="size-4 text-blue-700" aria-label="Upload required data" />
                    )}
                    {p.service.name}
                  </span>
                </td>
                <td className="px-3 py-2">{humanize(p.service.scope)}</td>
                <td className="px-3 py-2">{formatDate(p.createdAt)}</td>
                <td className="px-3 py-2">{p.provider.name}</td>
                <td className="px-3 py-2">
                  <span className="inline-flex flex-wrap items-center gap-2">
                    <PurchaseStatusBadge status={p.orderStatus} />
                    {p.orderStatus === 'completed' && (
                      // The report as a PDF (it is also a series of the study, in the viewer and download).
                      <a
                        href={`/api/orders/${encodeURIComponent(p.id)}/report`}
                        target="_blank"
                        rel="noopener noreferrer"
                        className="inline-flex items-center gap-1 text-primary underline-offset-4 hover:underline"
                      >
                        <FileText className="size-4" aria-hidden="true" />
                        Open report
                      </a>
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
    </div>
  );
}
