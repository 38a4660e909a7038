import { formatDollars, type Purchase } from '@mi/contracts/orders';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { useToast } from '@/hooks/use-toast';
import { queryKeys } from '@/lib/query-keys';
import { EMPTY_CARD, PaymentFields, useCardPayment } from './card-payment';

/** Pays an order waiting for payment (Transaction History), at the order's own cost. */
export function PayOrderDialog({ order, onClose }: { order: Purchase; onClose: () => void }) {
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [card, setCard] = useState(EMPTY_CARD);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { pay, dialog, stripeRef } = useCardPayment();

  async function submit() {
    setError(null);
    setBusy(true);
    try {
      await pay({ orderId: order.id, amount: Math.round(order.cost * 100) }, card);
      toast({
        title: 'Payment Completed',
        description: `${order.service.name}: ${formatDollars(order.cost)} paid.`,
      });
      await queryClient.invalidateQueries({ queryKey: queryKeys.purchases.all });
      onClose();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <Dialog open onOpenChange={(open) => !open && !busy && onClose()}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Pay for {order.service.name}</DialogTitle>
            <DialogDescription>
              {order.provider.name} · {formatDollars(order.cost)}
            </DialogDescription>
          </DialogHeader>
          <PaymentFields
            card={card}
            onChange={setCard}
            disabled={busy}
            amountCents={Math.round(order.cost * 100)}
            stripeRef={stripeRef}
          />
          {error && (
            <Alert variant="destructive" role="alert">
              {error}
            </Alert>
          )}
          <DialogFooter>
            <Button variant="outline" onClick={onClose} disabled={busy}>
              Cancel
            </Button>
            <Button onClick={() => void submit()} disabled={busy}>
              {busy ? 'Processing…' : 'Make Payment'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
      {dialog}
    </>
  );
}
