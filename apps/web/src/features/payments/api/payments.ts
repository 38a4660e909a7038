import type {
  CreatePaymentIntentBody,
  CreatePurchaseBody,
  PaymentConfig,
  PaymentIntentResponse,
  PaymentResult,
  Purchase,
  SandboxCard,
} from '@mi/contracts/orders';
import { api } from '@/lib/api-client';

/** POST /api/payments/create-payment-intent: the server prices it; `amount` (cents) is checked against that. */
export function createPaymentIntent(body: CreatePaymentIntentBody): Promise<PaymentIntentResponse> {
  return api.post<PaymentIntentResponse>('/api/payments/create-payment-intent', body);
}

/** POST /api/payments/sandbox/confirm: our card form, to the embedded sandbox processor. */
export function confirmCard(clientSecret: string, card: SandboxCard): Promise<PaymentResult> {
  return api.post<PaymentResult>('/api/payments/sandbox/confirm', { clientSecret, card });
}

/** POST /api/payments/sandbox/authenticate: the extra confirmation step's outcome. */
export function authenticatePayment(clientSecret: string, approve: boolean): Promise<PaymentResult> {
  return api.post<PaymentResult>('/api/payments/sandbox/authenticate', { clientSecret, approve });
}

/** POST /api/purchases: the purchase the payment made (the server made it already; this is idempotent). */
export function recordPurchase(body: CreatePurchaseBody): Promise<Purchase> {
  return api.post<Purchase>('/api/purchases', body);
}

/** GET /api/payments/config: which card form to show (the sandbox's, or Stripe Elements). */
export function getPaymentConfig(): Promise<PaymentConfig> {
  return api.get<PaymentConfig>('/api/payments/config');
}

/** POST /api/payments/complete: after Stripe.js confirmed, the server asks Stripe and records the purchase. */
export function completePayment(paymentIntentId: string): Promise<PaymentResult> {
  return api.post<PaymentResult>('/api/payments/complete', { paymentIntentId });
}
