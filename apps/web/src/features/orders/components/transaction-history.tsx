import { formatDollars, humanize, type Purchase } from '@mi/contracts/orders';
import { useMemo, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { NativeSelect } from '@/components/ui/native-select';
import { useToast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useCancelOrder } from '../api/cancel-order';
import { usePurchases } from '../api/get-purchases';
import { TransactionStatusBadge } from './order-status-badge';

/** Transaction History (/billing): every order with its cost; unpaid ones can be paid or cancelled. */
export function TransactionHistory({ userId, onPay }: { userId: string; onPay: (order: Purchase) => void }) {
  const purchases = usePurchases(userId);
  const cancel = useCancelOrder();
  const { toast } = useToast();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('all');
  const statuses = useMemo(
    () => [...new Set((purchases.data ?? []).map((p) => p.orderStatus))].sort(),
    [purchases.data],
  );
  const rows = useMemo(() => {
    const q = search.trim().toLowerCase();
    return (purchases.data ?? []).filter(
      (p) =>
        (status === 'all' || p.orderStatus === status) &&
        (!q || p.service.name.toLowerCase().includes(q) || p.id.toLowerCase().includes(q)),
    );
  }, [purchases.data, search, status]);

  return (
    <Card className="p-4">
      <h2 className="mb-3 text-lg font-semibold">Transactions</h2>
      <div className="mb-3 flex flex-col gap-2 sm:flex-row">
        <Input
          placeholder="Search transactions..."
          aria-label="Search transactions"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          className="sm:max-w-xs"
        />
        <NativeSelect
          aria-label="Status"
          value={status}
          onChange={(e) => setStatus(e.target.value)}
          className="sm:w-52"
        >
          <option value="all">All Statuses</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {humanize(s)}
            </option>
          ))}
        </NativeSelect>
      </div>
      <div className="overflow-x-auto">
        <table className="w-full min-w-[560px] text-sm">
          <thead className="border-b bg-muted/40">
            <tr className="text-left">
              <th className="px-3 py-2 font-medium">Date</th>
              <th className="px-3 py-2 font-medium">Name</th>
              <th className="px-3 py-2 font-medium">Cost</th>
              <th className="px-3 py-2 font-medium">Status</th>
              <th className="px-3 py-2" />
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
            {!purchases.isPending && rows.length === 0 && (
              <tr>
                <td colSpan={5} className="px-3 py-6 text-center text-muted-foreground">
                  No transactions found
                </td>
              </tr>
            )}
            {rows.map((p) => (
              <tr key={p.id} className="border-b">
                <td className="px-3 py-2">{new Date(p.createdAt).toLocaleDateString()}</td>
                <td className="px-3 py-2">
                  <div className="font-medium">{p.service.name}</div>
                  <div className="text-xs text-muted-foreground">
                    {p.provider.name}
                    {p.card ? ` · ${p.card.brand} •••• ${p.card.last4}` : ''}
                  </div>
                </td>
                <td className="px-3 py-2">{formatDollars(p.cost)}</td>
                <td className="px-3 py-2">
                  <TransactionStatusBadge status={p.orderStatus} />
                </td>
                <td className="px-3 py-2 text-right">
                  {p.orderStatus === 'awaiting_payment' && (
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
                              toast({
                                title: 'Error',
                                description: errorMessage(err),
                                variant: 'destructive',
                              }),
                          })
                        }
                      >
                        Cancel
                      </Button>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
