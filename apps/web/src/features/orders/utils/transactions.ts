import { formatDollars, type Purchase } from '@mi/contracts/orders';

/**
 * One line of Transaction History. Like a bank statement, a refund is a line of its own, dated
 * when the money went back and with a negative amount; the order's payment line stays as it was
 * charged (its status column shows the order's state, 'Refunded').
 */
export interface TransactionEntry {
  key: string;
  kind: 'payment' | 'refund';
  /** ISO date of the charge (or order) or of the refund. */
  date: string;
  /** Dollars; negative for a refund. */
  amount: number;
  purchase: Purchase;
}

/** The lines of a user's orders, newest first. */
export function transactionEntries(purchases: readonly Purchase[]): TransactionEntry[] {
  const entries: TransactionEntry[] = [];
  for (const p of purchases) {
    entries.push({ key: p.id, kind: 'payment', date: p.createdAt, amount: p.cost, purchase: p });
    if (p.refundedAmount !== null && p.refundedAt !== null)
      entries.push({
        key: `${p.id}:refund`,
        kind: 'refund',
        date: p.refundedAt,
        amount: -p.refundedAmount,
        purchase: p,
      });
  }
  // Newest first; a refund dated the same instant as its charge still comes above it.
  return entries.sort(
    (a, b) => b.date.localeCompare(a.date) || (a.kind === b.kind ? 0 : a.kind === 'refund' ? -1 : 1),
  );
}

/**
 * Search by service name or purchase id (case-insensitive), and the status filter (the order's
 * status, so 'Refunded' shows both lines of a refunded order).
 */
export function filterTransactions(
  entries: readonly TransactionEntry[],
  search: string,
  status: string,
): TransactionEntry[] {
  const q = search.trim().toLowerCase();
  return entries.filter(
    ({ purchase: p }) =>
      (status === 'all' || p.orderStatus === status) &&
      (!q || p.service.name.toLowerCase().includes(q) || p.id.toLowerCase().includes(q)),
  );
}

/** '$199.99', and '-$199.99' for money given back. */
export function formatAmount(amount: number): string {
  return amount < 0 ? `-${formatDollars(-amount)}` : formatDollars(amount);
}
