import type { Purchase } from '@mi/contracts/orders';
import { useMemo } from 'react';
import { distinctOptions, FilterToolbar } from '@/components/list/filter-toolbar';
import { ListLayout } from '@/components/list/list-layout';
import { listStatus, ListStatus, ListStatusRow } from '@/components/list/list-status';
import { useList } from '@/components/list/use-list';
import { DemoBadge } from '@/components/provider-trust';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { useToast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/utils';
import { useCancelOrder } from '../api/cancel-order';
import { usePurchases } from '../api/get-purchases';
import {
  filterTransactions,
  formatAmount,
  transactionEntries,
  type TransactionEntry,
} from '../utils/transactions';
import { purchaseStatusLabel, TransactionStatusBadge } from './order-status-badge';

/** The line's name and, below it, who provided it and the card it was charged to or refunded to. */
function EntryName({ entry: { kind, purchase: p } }: { entry: TransactionEntry }) {
  const card = p.card ? `${p.card.brand} •••• ${p.card.last4}` : null;
  return (
    <>
      <div className="font-medium [overflow-wrap:anywhere]">
        {kind === 'refund' ? `Refund: ${p.service.name}` : p.service.name}
      </div>
      <div className="text-xs text-muted-foreground [overflow-wrap:anywhere]">
        {p.provider.name}
        {card ? (kind === 'refund' ? ` · to ${card}` : ` · ${card}`) : ''}
        {p.provider.demo && <DemoBadge className="ml-1.5" />}
      </div>
    </>
  );
}

/** A refund line says 'Refund'; a payment line shows the order's status (the spec's badges). */
function EntryStatus({ entry }: { entry: TransactionEntry }) {
  return entry.kind === 'refund' ? (
    <Badge className="bg-slate-200 text-slate-700">Refund</Badge>
  ) : (
    <TransactionStatusBadge status={entry.purchase.orderStatus} />
  );
}

/**
 * Transaction History (/billing): every order with its cost, and each refund as a line of its own
 * with a negative amount; unpaid orders can be paid or cancelled. A table on wide screens, cards
 * on a phone.
 */
export function TransactionHistory({ userId, onPay }: { userId: string; onPay: (order: Purchase) => void }) {
  const purchases = usePurchases(userId);
  const cancel = useCancelOrder();
  const { toast } = useToast();
  const entries = useMemo(() => transactionEntries(purchases.data ?? []), [purchases.data]);
  const list = useList<TransactionEntry, 'date', { status: string }>({
    rows: entries,
    sort: { key: 'date', dir: 'desc' },
    // transactionEntries puts them in order already (newest first).
    sortBy: (rows) => [...rows],
    filters: { status: 'all' },
    filterRows: (rows, search, f) => filterTransactions(rows, search, f.status),
    pageSize: Infinity,
  });
  // Rows held from before a failed reload are not shown under its error.
  const rows = purchases.isError ? [] : list.rows;
  const status = { error: 'Failed to load transactions.', empty: 'No transactions found' };

  const actions = (entry: TransactionEntry) => {
    const p = entry.purchase;
    if (entry.kind !== 'payment' || p.orderStatus !== 'awaiting_payment') return null;
    return (
      <span className="inline-flex gap-2">
        <Button size="sm" onClick={() => onPay(p)}>
          Pay
        </Button>
        <Button
          size="sm"
          variant="outline"
          disabled={cancel.isPending}
          onClick={() =>
            cancel.mutate(p.id, {
              onError: (err) =>
                toast({ title: 'Error', description: errorMessage(err), variant: 'destructive' }),
            })
          }
        >
          Cancel
        </Button>
      </span>
    );
  };
  const amount = (entry: TransactionEntry) => (
    <span className={cn('tabular-nums', entry.amount < 0 && 'text-green-700')}>
      {formatAmount(entry.amount)}
    </span>
  );
  const date = (entry: TransactionEntry) => new Date(entry.date).toLocaleDateString();

  return (
    <Card className="grid gap-3 p-4">
      <h2 className="text-lg font-semibold">Transactions</h2>
      <FilterToolbar
        search={list.search}
        onSearch={list.setSearch}
        placeholder="Search transactions..."
        searchLabel="Search transactions"
        filters={[
          {
            label: 'Status',
            allLabel: 'All Statuses',
            value: list.filters.status,
            onChange: (value) => list.setFilter('status', value),
            options: distinctOptions(purchases.data ?? [], (p) => p.orderStatus, purchaseStatusLabel),
          },
        ]}
      />
      <ListLayout
        table={() => (
          <div className="overflow-x-auto">
            <table className="w-full text-sm" aria-label="Transactions">
              <thead className="border-b bg-muted/40">
                <tr className="text-left">
                  <th scope="col" className="px-3 py-2 font-medium">
                    Date
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Name
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Cost
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Status
                  </th>
                  <th scope="col" className="px-3 py-2">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                <ListStatusRow query={purchases} count={rows.length} columns={5} {...status} />
                {rows.map((entry) => (
                  <tr key={entry.key} className="border-b">
                    <td className="px-3 py-2">{date(entry)}</td>
                    <td className="px-3 py-2">
                      <EntryName entry={entry} />
                    </td>
                    <td className="px-3 py-2">{amount(entry)}</td>
                    <td className="px-3 py-2">
                      <EntryStatus entry={entry} />
                    </td>
                    <td className="px-3 py-2 text-right">{actions(entry)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        cards={() =>
          listStatus(purchases, rows.length) !== null ? (
            <ListStatus
              query={purchases}
              count={rows.length}
              error={status.error}
              empty={<p className="py-6 text-center text-sm text-muted-foreground">{status.empty}</p>}
            />
          ) : (
            <ul className="grid divide-y" aria-label="Transactions">
              {rows.map((entry) => (
                <li key={entry.key} className="grid gap-2 py-3">
                  <div className="flex items-start justify-between gap-3">
                    <div className="min-w-0">
                      <EntryName entry={entry} />
                    </div>
                    <div className="shrink-0 text-right font-medium">{amount(entry)}</div>
                  </div>
                  <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
                    <span className="text-muted-foreground">{date(entry)}</span>
                    <EntryStatus entry={entry} />
                  </div>
                  {actions(entry)}
                </li>
              ))}
            </ul>
          )
        }
      />
    </Card>
  );
}
