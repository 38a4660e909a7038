import { Elements, PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js';
// The `pure` entry fetches Stripe.js only when loadStripe is called (a card is paid with Stripe);
// the main entry injects it as soon as this file is imported, even where payments are in test mode.
import type { Stripe, StripeElements } from '@stripe/stripe-js';
import { loadStripe } from '@stripe/stripe-js/pure';
import { useEffect, useMemo, useState, type MutableRefObject } from 'react';
import { Alert } from '@/components/ui/alert';

export const STRIPE_LOAD_FAILED = 'Could not load Stripe library.';

/** What paying with Stripe needs from the mounted Payment Element. */
export interface StripeHandle {
  stripe: Stripe;
  elements: StripeElements;
}

// Stripe.js is loaded once per publishable key; a failed load is tried again on the next mount.
const loads = new Map<string, Promise<Stripe | null>>();
function loadStripeOnce(publishableKey: string): Promise<Stripe | null> {
  let load = loads.get(publishableKey);
  if (!load) {
    load = loadStripe(publishableKey).catch(() => null);
    loads.set(publishableKey, load);
    void load.then((s) => {
      if (!s) loads.delete(publishableKey);
    });
  }
  return load;
}

function Registrar({ handleRef }: { handleRef: MutableRefObject<StripeHandle | null> }) {
  const stripe = useStripe();
  const elements = useElements();
  useEffect(() => {
    handleRef.current = stripe && elements ? { stripe, elements } : null;
    return () => {
      handleRef.current = null;
    };
  }, [stripe, elements, handleRef]);
  return <PaymentElement options={{ layout: 'tabs' }} />;
}

/**
 * Stripe's Payment Element when Stripe is the card processor (GET /api/payments/config): the card
 * never touches our pages or server. `amountCents` is only for what Elements shows; the server
 * sets the payment's amount.
 */
export function StripeCardFields({
  publishableKey,
  amountCents,
  handleRef,
}: {
  publishableKey: string;
  amountCents: number;
  handleRef: MutableRefObject<StripeHandle | null>;
}) {
  const [failed, setFailed] = useState(false);
  const stripePromise = useMemo(
    () =>
      loadStripeOnce(publishableKey).then((s) => {
        if (!s) setFailed(true);
        return s;
      }),
    [publishableKey],
  );
  if (failed)
    return (
      <Alert variant="destructive" role="alert">
        {STRIPE_LOAD_FAILED}
      </Alert>
    );
  return (
    <Elements
      stripe={stripePromise}
      options={{ mode: 'payment', amount: Math.max(amountCents, 50), currency: 'usd' }}
    >
      <Registrar handleRef={handleRef} />
    </Elements>
  );
}
