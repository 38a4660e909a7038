import { formatDollars, type Purchase } from '@mi/contracts/orders';
import { Badge } from '@/components/ui/badge';
import { formatDate } from '@/lib/format';
import { cn } from '@/lib/utils';

/** Each order state's one wording (badges and filters everywhere) and its Purchased Services colour. */
const PURCHASED: Record<string, { label: string; className: string }> = {
  awaiting_payment: { label: 'Awaiting Payment', className: 'bg-orange-100 text-orange-800' },
  pending_approval: { label: 'Pending Provider Approval', className: 'bg-yellow-100 text-yellow-800' },
  pending_data_upload: { label: 'Upload Required Data', className: 'bg-blue-100 text-blue-800' },
  in_progress: { label: 'In Progress', className: 'bg-purple-100 text-purple-800' },
  completed: { label: 'Completed', className: 'bg-green-100 text-green-800' },
  declined: { label: 'Declined', className: 'bg-red-100 text-red-800' },
  cancelled: { label: 'Cancelled', className: 'bg-slate-200 text-slate-700' },
  refunded: { label: 'Refunded', className: 'bg-slate-200 text-slate-700' },
};

/** The label of a state ('Pending Provider Approval'), the same in every badge and filter; unknown ones raw. */
export function purchaseStatusLabel(status: string): string {
  return PURCHASED[status]?.label ?? status;
}

export function PurchaseStatusBadge({ status }: { status: string }) {
  const known = PURCHASED[status];
  return (
    <Badge className={cn(known?.className ?? 'bg-muted text-foreground')}>{known?.label ?? status}</Badge>
  );
}

/** Transaction History: completed green, pending approval yellow, anything else grey; the one label of each state. */
export function TransactionStatusBadge({ status }: { status: string }) {
  const className =
    status === 'completed'
      ? 'bg-green-100 text-green-800'
      : status === 'pending_approval'
        ? 'bg-yellow-100 text-yellow-800'
        : 'bg-slate-200 text-slate-700';
  return <Badge className={className}>{purchaseStatusLabel(status)}</Badge>;
}

/** 'Refunded $199.99 on Mar 03, 2025' under a refunded order's badge; nothing when none. */
export function RefundNote({ purchase, className }: { purchase: Purchase; className?: string }) {
  if (purchase.refundedAmount === null) return null;
  return (
    <span className={cn('text-xs text-muted-foreground', className)}>
      Refunded {formatDollars(purchase.refundedAmount)}
      {purchase.refundedAt ? ` on ${formatDate(purchase.refundedAt)}` : ''}
    </span>
  );
}
