import { CARD_MESSAGES, cardFormError, type PaymentResult, type SandboxCard } from '@mi/contracts/orders';
import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type MutableRefObject } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { ApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import {
  authenticatePayment,
  completePayment,
  confirmCard,
  createPaymentIntent,
  getPaymentConfig,
} from '../api/payments';
import { STRIPE_LOAD_FAILED, StripeCardFields, type StripeHandle } from './stripe-card';

export const EMPTY_CARD: SandboxCard = { number: '', expiry: '', cvc: '', postalCode: '' };
export const UNEXPECTED = 'An unexpected error occurred.';

/** '4242424242424242' → '4242 4242 4242 4242' while typing. */
function groupDigits(value: string): string {
  return value
    .replace(/\D/g, '')
    .slice(0, 19)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
}
function formatExpiry(value: string): string {
  const digits = value.replace(/\D/g, '').slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)} / ${digits.slice(2)}` : digits;
}

/** The card form of the sandbox processor: number, expiry, CVC, postal code. Nothing is kept in the browser. */
export function CardFields({
  card,
  onChange,
  disabled,
}: {
  card: SandboxCard;
  onChange: (card: SandboxCard) => void;
  disabled?: boolean;
}) {
  return (
    <fieldset className="grid grid-cols-2 gap-3" disabled={disabled} aria-label="Card details">
      <div className="col-span-2 grid gap-1.5">
        <Label htmlFor="card-number">Card number</Label>
        <Input
          id="card-number"
          inputMode="numeric"
          autoComplete="cc-number"
          placeholder="1234 1234 1234 1234"
          value={card.number}
          onChange={(e) => onChange({ ...card, number: groupDigits(e.target.value) })}
        />
      </div>
      <div className="grid gap-1.5">
        <Label htmlFor="card-expiry">Expiry</Label>
        <Input
          id="card-expiry"
          inputMode="numeric"
          autoComplete="cc-exp"
          placeholder="MM / YY"
          value={card.expiry}
          onChange={(e) => onChange({ ...card, expiry: formatExpiry(e.target.value) })}
        />
      </div>
      <div className="grid gap-1.5">
        <Label htmlFor="card-cvc">CVC</Label>
        <Input
          id="card-cvc"
          inputMode="numeric"
          autoComplete="cc-csc"
          placeholder="CVC"
          value={card.cvc}
          onChange={(e) => onChange({ ...card, cvc: e.target.value.replace(/\D/g, '').slice(0, 4) })}
        />
      </div>
      <div className="col-span-2 grid gap-1.5">
        <Label htmlFor="card-postal">Postal code</Label>
        <Input
          id="card-postal"
          autoComplete="postal-code"
          placeholder="12345"
          value={card.postalCode}
          onChange={(e) => onChange({ ...card, postalCode: e.target.value.slice(0, 16) })}
        />
      </div>
      <p className="col-span-2 text-xs text-muted-foreground">
        Test mode: pay with 4242 4242 4242 4242, any future date and any CVC.
      </p>
    </fieldset>
  );
}

/** Which processor takes the card: the embedded sandbox (default) or Stripe. */
export function usePaymentConfig() {
  return useQuery({ queryKey: queryKeys.paymentConfig, queryFn: getPaymentConfig, staleTime: Infinity });
}

/**
 * The card entry the processor wants: our sandbox form, or Stripe's Payment Element when the
 * server says Stripe takes payments.
 */
export function PaymentFields({
  card,
  onChange,
  disabled,
  amountCents,
  stripeRef,
}: {
  card: SandboxCard;
  onChange: (card: SandboxCard) => void;
  disabled?: boolean;
  amountCents: number;
  stripeRef: MutableRefObject<StripeHandle | null>;
}) {
  const config = usePaymentConfig();
  if (config.isPending) return <p className="text-sm text-muted-foreground">Loading...</p>;
  if (config.data?.processor === 'stripe' && config.data.publishableKey)
    return (
      <StripeCardFields
        publishableKey={config.data.publishableKey}
        amountCents={amountCents}
        handleRef={stripeRef}
      />
    );
  return <CardFields card={card} onChange={onChange} disabled={disabled} />;
}

/**
 * Pays with the card form: asks the server for the payment intent (it sets the amount), sends the
 * card to the processor and, when the card asks for it, shows the extra confirmation step.
 * Resolves with the result once the payment succeeded; throws an Error whose message is fit to show.
 */
export function useCardPayment() {
  const [challenge, setChallenge] = useState<{ resolve: (approve: boolean) => void } | null>(null);
  const config = usePaymentConfig();
  const stripeRef = useRef<StripeHandle | null>(null);

  /**
   * Stripe: Elements checks the entry, the server makes the intent, Stripe.js confirms it
   * (redirecting only when the payment method requires it), then the server asks Stripe.
   */
  async function payWithStripe(
    target: Parameters<typeof createPaymentIntent>[0],
  ): Promise<{ result: PaymentResult; paymentIntentId: string }> {
    const handle = stripeRef.current;
    if (!handle) throw new Error(STRIPE_LOAD_FAILED);
    const submitted = await handle.elements.submit();
    if (submitted.error) throw new Error(submitted.error.message ?? UNEXPECTED);
    const intent = await createPaymentIntent(target);
    const confirmed = await handle.stripe.confirmPayment({
      elements: handle.elements,
      clientSecret: intent.clientSecret,
      redirect: 'if_required',
      confirmParams: { return_url: window.location.href },
    });
    if (confirmed.error) throw new Error(confirmed.error.message ?? UNEXPECTED);
    const result = await completePayment(intent.paymentIntentId);
    if (result.status !== 'succeeded') throw new Error(result.error?.message ?? UNEXPECTED);
    return { result, paymentIntentId: intent.paymentIntentId };
  }

  async function pay(
    target: Parameters<typeof createPaymentIntent>[0],
    card: SandboxCard,
  ): Promise<{ result: PaymentResult; paymentIntentId: string }> {
    if (config.data?.processor === 'stripe') {
      try {
        return await payWithStripe(target);
      } catch (err) {
        if (err instanceof ApiError)
          throw new Error(err.status < 500 && err.serverMessage ? err.serverMessage : UNEXPECTED);
        throw err instanceof Error ? err : new Error(UNEXPECTED);
      }
    }
    const invalid = cardFormError(card, new Date());
    if (invalid) throw new Error(CARD_MESSAGES[invalid]);
    try {
      const intent = await createPaymentIntent(target);
      let result = await confirmCard(intent.clientSecret, card);
      if (result.status === 'requires_action') {
        const approve = await new Promise<boolean>((resolve) => setChallenge({ resolve }));
        setChallenge(null);
        result = await authenticatePayment(intent.clientSecret, approve);
      }
      if (result.status !== 'succeeded') throw new Error(result.error?.message ?? UNEXPECTED);
      return { result, paymentIntentId: intent.paymentIntentId };
    } catch (err) {
      if (err instanceof ApiError)
        throw new Error(err.status < 500 && err.serverMessage ? err.serverMessage : UNEXPECTED);
      throw err instanceof Error ? err : new Error(UNEXPECTED);
    }
  }

  const dialog = (
    <Dialog open={challenge !== null} onOpenChange={(open) => !open && challenge?.resolve(false)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Confirm your payment</DialogTitle>
          <DialogDescription>
            Your bank asks you to confirm this payment. (Test mode: choose whether the confirmation succeeds.)
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button variant="outline" onClick={() => challenge?.resolve(false)}>
            Fail authentication
          </Button>
          <Button onClick={() => challenge?.resolve(true)}>Complete authentication</Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
  return { pay, dialog, stripeRef };
}
