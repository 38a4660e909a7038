import { humanize, type Purchase } from '@mi/contracts/orders';
import { FileText, Star, Upload } from 'lucide-react';
import { useMemo, useState } from 'react';
import { distinctOptions, FilterToolbar } from '@/components/list/filter-toolbar';
import { ListLayout } from '@/components/list/list-layout';
import { listStatus, ListStatus, ListStatusRow } from '@/components/list/list-status';
import { matchesText } from '@/components/list/sort';
import { SortHeader, SortSelect } from '@/components/list/sort-controls';
import { useList } from '@/components/list/use-list';
import { DemoBadge, Stars } from '@/components/provider-trust';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { formatDate } from '@/lib/format';
import { cn } from '@/lib/utils';
import { usePurchases } from '../api/get-purchases';
import { PurchaseStatusBadge, purchaseStatusLabel, RefundNote } from './order-status-badge';
import { RateOrderDialog } from './rate-order-dialog';

type Key = 'name' | 'scope' | 'date' | 'provider' | 'status';
const SORT_BY = {
  name: (p: Purchase) => p.service.name,
  scope: (p: Purchase) => p.service.scope,
  date: (p: Purchase) => p.createdAt,
  provider: (p: Purchase) => p.provider.name,
  status: (p: Purchase) => p.orderStatus,
};
interface Filters {
  scope: string;
  provider: string;
  status: string;
}

const COLUMNS: Array<{ key: Key; label: string; kind?: 'date' }> = [
  { key: 'name', label: 'Service Name' },
  { key: 'scope', label: 'Scope' },
  { key: 'date', label: 'Purchase Date', kind: 'date' },
  { key: 'provider', label: 'Provider' },
  { key: 'status', label: 'Status' },
];

const needsData = (p: Purchase) => p.orderStatus === 'pending_data_upload';

/** A link that opens one of the order's reports (PDF) in a new tab. */
function ReportLink({ orderId, part, children }: { orderId: string; part?: 'automated'; children: string }) {
  const query = part ? `?part=${part}` : '';
  return (
    <a
      href={`/api/orders/${encodeURIComponent(orderId)}/report${query}`}
      target="_blank"
      rel="noopener noreferrer"
      className="inline-flex items-center gap-1 text-sm text-primary underline-offset-4 hover:underline"
    >
      <FileText className="size-4" aria-hidden="true" />
      {children}
    </a>
  );
}

/** Whether the buyer may still change the rating they gave (until `editableUntil`). */
export function ratingEditable(p: Purchase, now = Date.now()): boolean {
  return p.rating !== null && Date.parse(p.rating.editableUntil) > now;
}

/**
 * A completed order's rating: 'Rate' before one is given; the stars given, with 'Edit rating'
 * while they may still be changed.
 */
function RatingAction({ purchase: p, onRate }: { purchase: Purchase; onRate: (p: Purchase) => void }) {
  if (p.orderStatus !== 'completed') return null;
  if (p.rating === null)
    return (
      <Button size="sm" variant="outline" className="h-7" onClick={() => onRate(p)}>
        <Star aria-hidden="true" /> Rate
      </Button>
    );
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <span className="inline-flex items-center gap-1 text-xs text-muted-foreground">
        Your rating <Stars value={p.rating.stars} />
      </span>
      {ratingEditable(p) && (
        <Button size="sm" variant="ghost" className="h-7 px-2" onClick={() => onRate(p)}>
          Edit rating
        </Button>
      )}
    </span>
  );
}

/**
 * What can be done with an order: open its delivered report (and a package's automated part, there
 * before the professional's reading), give it the study it needs, or rate it once completed.
 * Reports are also series of the study, in the viewer and the download.
 */
function OrderActions({
  purchase: p,
  onAttach,
  onRate,
}: {
  purchase: Purchase;
  onAttach: (p: Purchase) => void;
  onRate: (p: Purchase) => void;
}) {
  if (needsData(p))
    return (
      <Button size="sm" variant="outline" onClick={() => onAttach(p)}>
        <Upload aria-hidden="true" /> Attach Study
      </Button>
    );
  const completed = p.orderStatus === 'completed';
  if (!completed && !p.automatedReportAt) return null;
  return (
    <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
      {completed && <ReportLink orderId={p.id}>Open report</ReportLink>}
      {p.automatedReportAt && (
        <ReportLink orderId={p.id} part="automated">
          Automated report
        </ReportLink>
      )}
      <RatingAction purchase={p} onRate={onRate} />
    </span>
  );
}

/** The provider's name, labelled 'Demo' for an order of demo data. */
function ProviderName({ purchase: p }: { purchase: Purchase }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5 [overflow-wrap:anywhere]">
      {p.provider.name}
      {p.provider.demo && <DemoBadge />}
    </span>
  );
}

/** The service name, after the upload icon of an order that waits for data. */
function ServiceName({ purchase: p }: { purchase: Purchase }) {
  return (
    <span className="inline-flex items-center gap-1.5 [overflow-wrap:anywhere]">
      {needsData(p) && (
        <Upload className="size-4 shrink-0 text-blue-700" aria-label="Upload required data" role="img" />
      )}
      {p.service.name}
    </span>
  );
}

/**
 * /services/purchased: the user's paid orders with search, filters and sortable columns; a table
 * on wide screens, cards on a phone. An order waiting for data is highlighted and can be given
 * another study (`onAttach`); a refunded one says how much went back and when.
 */
export function PurchasedServicesPage({
  userId,
  onAttach,
}: {
  userId: string;
  onAttach: (order: Purchase) => void;
}) {
  const purchases = usePurchases(userId);
  const [rating, setRating] = useState<Purchase | null>(null);

  // Orders still waiting for payment are on the Billing page, not purchased yet.
  const paid = useMemo(
    () =>
      (purchases.data ?? []).filter(
        (p) => p.orderStatus !== 'awaiting_payment' && p.orderStatus !== 'cancelled',
      ),
    [purchases.data],
  );
  const list = useList<Purchase, Key, Filters>({
    rows: paid,
    sort: { key: 'date', dir: 'desc' },
    sortBy: SORT_BY,
    search: (p, q) => matchesText([p.service.name, p.provider.name, p.id, humanize(p.service.scope)], q),
    filters: { scope: 'all', provider: 'all', status: 'all' },
    filter: (p, f) =>
      (f.scope === 'all' || p.service.scope === f.scope) &&
      (f.provider === 'all' || p.provider.name === f.provider) &&
      (f.status === 'all' || p.orderStatus === f.status),
    pageSize: Infinity,
  });
  // Rows held from before a failed reload are not shown under its error.
  const rows = purchases.isError ? [] : list.rows;
  const status = {
    error: 'Failed to load purchased services.',
    empty: 'No purchased services found',
  };

  return (
    <div className="grid gap-4">
      <FilterToolbar
        search={list.search}
        onSearch={list.setSearch}
        placeholder="Search purchased services..."
        searchLabel="Search purchased services"
        filters={[
          {
            label: 'Scope filter',
            allLabel: 'All Scopes',
            value: list.filters.scope,
            onChange: (value) => list.setFilter('scope', value),
            options: distinctOptions(paid, (p) => p.service.scope),
          },
          {
            label: 'Provider filter',
            allLabel: 'All Providers',
            value: list.filters.provider,
            onChange: (value) => list.setFilter('provider', value),
            options: distinctOptions(
              paid,
              (p) => p.provider.name,
              (v) => v,
            ),
          },
          {
            label: 'Status filter',
            allLabel: 'All Statuses',
            value: list.filters.status,
            onChange: (value) => list.setFilter('status', value),
            options: distinctOptions(paid, (p) => p.orderStatus, purchaseStatusLabel),
          },
        ]}
      />
      <ListLayout
        table={() => (
          <Card className="overflow-x-auto">
            <table className="w-full text-sm" aria-label="Purchased services">
              <thead className="border-b bg-muted/40">
                <tr>
                  {COLUMNS.map((c) => (
                    <SortHeader
                      key={c.key}
                      sortKey={c.key}
                      label={c.label}
                      sort={list.sort}
                      onSort={list.setSort}
                    />
                  ))}
                </tr>
              </thead>
              <tbody>
                <ListStatusRow query={purchases} count={rows.length} columns={5} {...status} />
                {rows.map((p) => (
                  <tr key={p.id} className={cn('border-b align-top', needsData(p) && 'bg-blue-50')}>
                    <td className="px-3 py-2 font-medium">
                      <ServiceName purchase={p} />
                    </td>
                    <td className="px-3 py-2">{humanize(p.service.scope)}</td>
                    <td className="px-3 py-2">{formatDate(p.createdAt)}</td>
                    <td className="px-3 py-2">
                      <ProviderName purchase={p} />
                    </td>
                    <td className="px-3 py-2">
                      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                        <PurchaseStatusBadge status={p.orderStatus} />
                        <OrderActions purchase={p} onAttach={onAttach} onRate={setRating} />
                      </div>
                      <RefundNote purchase={p} className="mt-1 block" />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Card>
        )}
        cards={() => (
          <>
            <SortSelect columns={COLUMNS} sort={list.sort} onSort={list.setSort} />
            <ListStatus
              query={purchases}
              count={rows.length}
              error={status.error}
              empty={<Card className="p-6 text-center text-sm text-muted-foreground">{status.empty}</Card>}
            />
            {listStatus(purchases, rows.length) === null && (
              <ul className="grid gap-3" aria-label="Purchased services">
                {rows.map((p) => (
                  <li key={p.id}>
                    <Card className={cn('grid gap-3 p-4', needsData(p) && 'border-blue-300 bg-blue-50')}>
                      <div className="font-medium">
                        <ServiceName purchase={p} />
                      </div>
                      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                        <dt className="text-muted-foreground">Scope</dt>
                        <dd>{humanize(p.service.scope)}</dd>
                        <dt className="text-muted-foreground">Purchased</dt>
                        <dd>{formatDate(p.createdAt)}</dd>
                        <dt className="text-muted-foreground">Provider</dt>
                        <dd>
                          <ProviderName purchase={p} />
                        </dd>
                      </dl>
                      <div className="grid gap-1">
                        <div>
                          <PurchaseStatusBadge status={p.orderStatus} />
                        </div>
                        <RefundNote purchase={p} />
                      </div>
                      <OrderActions purchase={p} onAttach={onAttach} onRate={setRating} />
                    </Card>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      />
      {rating && <RateOrderDialog key={rating.id} order={rating} onClose={() => setRating(null)} />}
    </div>
  );
}
