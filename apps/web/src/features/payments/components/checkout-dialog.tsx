import type { CreatePaymentIntentBody, PaymentResult } from '@mi/contracts/orders';
import { useState, type ReactNode } from 'react';
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
import { cn } from '@/lib/utils';
import { EMPTY_CARD, PaymentFields, useCardPayment } from './card-payment';

/**
 * The one card checkout of the app: a dialog with what is bought (`children`), the card form of
 * the processor, the error of the last attempt, Cancel and Make Payment, and the extra
 * confirmation step some cards ask for. Used to buy from Available Services (purchase-dialog.tsx)
 * and to pay an order waiting for payment on /billing (pay-order-dialog.tsx).
 */
export function CheckoutDialog({
  title,
  description,
  amountCents,
  target,
  onPaid,
  onClose,
  done,
  className,
  children,
}: {
  title: string;
  description: ReactNode;
  /** What the form says will be charged (the server sets the amount itself). */
  amountCents: number;
  /** What to pay for; throwing an Error shows its message instead (e.g. no study chosen). */
  target: () => CreatePaymentIntentBody;
  /** After the payment succeeded; throwing shows the message. */
  onPaid: (paid: { result: PaymentResult; paymentIntentId: string }) => Promise<void> | void;
  onClose: () => void;
  /** Shown instead of the form once set (the purchase's 'Payment Completed'). */
  done?: ReactNode;
  className?: string;
  /** What is bought, between the heading and the card form; `busy` while a payment runs. */
  children?: (busy: boolean) => ReactNode;
}) {
  const [card, setCard] = useState(EMPTY_CARD);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { pay, dialog, stripeRef } = useCardPayment();

  async function submit() {
    setError(null);
    let body: CreatePaymentIntentBody;
    try {
      body = target();
    } catch (err) {
      setError((err as Error).message);
      return;
    }
    setBusy(true);
    try {
      const paid = await pay(body, card);
      setCard(EMPTY_CARD);
      await onPaid(paid);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <Dialog open onOpenChange={(open) => !open && !busy && onClose()}>
        <DialogContent className={cn(className)}>
          {done ?? (
            <>
              <DialogHeader>
                <DialogTitle>{title}</DialogTitle>
                <DialogDescription>{description}</DialogDescription>
              </DialogHeader>
              {children?.(busy)}
              <PaymentFields
                card={card}
                onChange={setCard}
                disabled={busy}
                amountCents={amountCents}
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
            </>
          )}
        </DialogContent>
      </Dialog>
      {dialog}
    </>
  );
}
