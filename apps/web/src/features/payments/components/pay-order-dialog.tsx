import { formatDollars, type Purchase } from '@mi/contracts/orders';
import { useQueryClient } from '@tanstack/react-query';
import { useToast } from '@/hooks/use-toast';
import { queryKeys } from '@/lib/query-keys';
import { CheckoutDialog } from './checkout-dialog';

/** Pays an order waiting for payment (Transaction History), at the order's own cost. */
export function PayOrderDialog({ order, onClose }: { order: Purchase; onClose: () => void }) {
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const amount = Math.round(order.cost * 100);
  return (
    <CheckoutDialog
      title={`Pay for ${order.service.name}`}
      description={`${order.provider.name}${order.provider.demo ? ' (Demo)' : ''} · ${formatDollars(order.cost)}`}
      amountCents={amount}
      target={() => ({ orderId: order.id, amount })}
      onPaid={async () => {
        toast({
          title: 'Payment Completed',
          description: `${order.service.name}: ${formatDollars(order.cost)} paid.`,
        });
        await queryClient.invalidateQueries({ queryKey: queryKeys.purchases.all });
        onClose();
      }}
      onClose={onClose}
    />
  );
}
