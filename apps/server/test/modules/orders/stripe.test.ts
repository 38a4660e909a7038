import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { auditEvents, mailOutbox, orders, payments } from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { offeringProfessional } from '../../helpers/directory';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';
import { startFakeStripe, type FakeStripe } from './fake-stripe';

const WEBHOOK_SECRET = 'whsec_test_secret';

let ctx: TestContext;
let stripeApi: FakeStripe;
let buyer: Patient;
let studyId: string;
let serviceId: string;
let providerId: string;
let priceCents: number;
const stripe = new Stripe('sk_test_fake');

const db = () => ctx.services.database.db;
const call = (p: Patient, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  ctx.app.inject({ method, url, headers: p.auth, ...(payload ? { payload } : {}) });

/** Sends a Stripe event for the intent's current state, signed with `secret`. */
function webhook(type: string, intentId: string, opts: { secret?: string; eventId?: string } = {}) {
  const payload = JSON.stringify({
    id: opts.eventId ?? `evt_${uid().replace(/\D/g, '').slice(0, 20)}`,
    object: 'event',
    type,
    api_version: '2024-06-20',
    created: Math.floor(Date.now() / 1000),
    data: { object: { ...stripeApi.intents.get(intentId) } },
  });
  const header = stripe.webhooks.generateTestHeaderString({
    payload,
    secret: opts.secret ?? WEBHOOK_SECRET,
  });
  return {
    payload,
    send: (signature = header) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/payments/webhook',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        payload,
      }),
  };
}

async function newIntent(): Promise<{ paymentIntentId: string; clientSecret: string; amount: number }> {
  const res = await call(buyer, 'POST', '/api/payments/create-payment-intent', {
    serviceId,
    providerId,
    studyId,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const ordersOf = async (intentId: string) => {
  const [payment] = await db().select().from(payments).where(eq(payments.intentId, intentId));
  return payment ? db().select().from(orders).where(eq(orders.paymentId, payment.id)) : [];
};

beforeAll(async () => {
  stripeApi = await startFakeStripe();
  ctx = await createTestContext({
    STRIPE_SECRET_KEY: 'sk_test_fake',
    STRIPE_PUBLISHABLE_KEY: 'pk_test_fake',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: stripeApi.url,
  });
  buyer = await newPatient(ctx, 'stripe-buyer@example.com');
  const studyUid = uid();
  const seriesUid = uid();
  [studyId] = (await ingestFiles(ctx, buyer.id, [
    makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: 1, modality: 'CT' }),
  ])) as [string];
  await offeringProfessional(ctx, 'reader-stripe@example.com');
  const catalogue = (await call(buyer, 'GET', '/api/services')).json() as Array<{
    id: string;
    name: string;
    providers: Array<{ id: string; price: number }>;
  }>;
  const expert = catalogue.find((s) => s.name === 'Expert Review')!;
  serviceId = expert.id;
  providerId = expert.providers[0]!.id;
  priceCents = Math.round(expert.providers[0]!.price * 100);
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  await stripeApi?.close();
});

describe('Stripe as the card processor', () => {
  it('tells the browser to use Stripe Elements with the publishable key', async () => {
    const res = await call(buyer, 'GET', '/api/payments/config');
    expect(res.json()).toEqual({ processor: 'stripe', publishableKey: 'pk_test_fake' });
  });

  it('the CSP admits Stripe.js, its frames and its API only when Stripe is configured', async () => {
    const csp = String(
      (await ctx.app.inject({ method: 'GET', url: '/' })).headers['content-security-policy'],
    );
    expect(csp).toMatch(/script-src [^;]*https:\/\/js\.stripe\.com/);
    expect(csp).toMatch(/frame-src [^;]*https:\/\/js\.stripe\.com/);
    expect(csp).toMatch(/connect-src [^;]*https:\/\/api\.stripe\.com/);
    const sandbox = await createTestContext();
    try {
      const plain = String(
        (await sandbox.app.inject({ method: 'GET', url: '/' })).headers['content-security-policy'],
      );
      expect(plain).not.toContain('stripe.com');
    } finally {
      await sandbox.close();
    }
  });

  it('creates the intent at Stripe for the server’s price, and the sandbox form is gone', async () => {
    const { paymentIntentId, clientSecret, amount } = await newIntent();
    expect(amount).toBe(priceCents);
    expect(clientSecret).toMatch(new RegExp(`^${paymentIntentId}_secret_`));
    const created = stripeApi.seen.find((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
    expect(created?.form).toMatchObject({ amount: String(priceCents), currency: 'usd' });
    expect(created?.idempotencyKey).toBeTruthy();
    const sandbox = await call(buyer, 'POST', '/api/payments/sandbox/confirm', {
      clientSecret,
      card: { number: '4242424242424242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
    });
    expect(sandbox.statusCode).toBe(404);
  });

  it('POST /api/payments/complete records the purchase once Stripe says it succeeded', async () => {
    const { paymentIntentId } = await newIntent();
    const early = await call(buyer, 'POST', '/api/payments/complete', { paymentIntentId });
    expect(early.json()).toMatchObject({ status: 'requires_payment_method', purchase: null });
    stripeApi.succeed(paymentIntentId, { brand: 'mastercard', last4: '4444' });
    const done = await call(buyer, 'POST', '/api/payments/complete', { paymentIntentId });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().purchase).toMatchObject({
      cost: priceCents / 100,
      orderStatus: 'pending_approval',
      card: { brand: 'mastercard', last4: '4444' },
    });
    // Stripe's webhook arriving afterwards adds nothing.
    expect((await webhook('payment_intent.succeeded', paymentIntentId).send()).statusCode).toBe(200);
    expect(await ordersOf(paymentIntentId)).toHaveLength(1);
  });

  it('a signed payment_intent.succeeded creates the order once; a replay creates nothing more', async () => {
    const { paymentIntentId } = await newIntent();
    stripeApi.succeed(paymentIntentId);
    const event = webhook('payment_intent.succeeded', paymentIntentId);
    const first = await event.send();
    expect(first.statusCode, first.body).toBe(200);
    const created = await ordersOf(paymentIntentId);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ costCents: priceCents, userId: buyer.id });
    const replay = await event.send();
    expect(replay.statusCode).toBe(200);
    expect(await ordersOf(paymentIntentId)).toHaveLength(1);
    // The receipt goes out through the send-email job, so it lands a moment later.
    const receiptsFor = async () =>
      (await db().select().from(mailOutbox).where(eq(mailOutbox.to, 'stripe-buyer@example.com'))).filter(
        (m) => m.text.includes(created[0]!.id),
      );
    await eventually(async () => (await receiptsFor()).length > 0);
    expect(await receiptsFor()).toHaveLength(1);
  });

  it('a bad signature is refused with 400 and changes nothing', async () => {
    const { paymentIntentId } = await newIntent();
    stripeApi.succeed(paymentIntentId);
    const forged = webhook('payment_intent.succeeded', paymentIntentId, { secret: 'whsec_wrong' });
    expect((await forged.send()).statusCode).toBe(400);
    const unsigned = webhook('payment_intent.succeeded', paymentIntentId);
    expect((await unsigned.send('t=1,v1=deadbeef')).statusCode).toBe(400);
    expect((await unsigned.send('')).statusCode).toBe(400);
    expect(await ordersOf(paymentIntentId)).toHaveLength(0);
    const [payment] = await db().select().from(payments).where(eq(payments.intentId, paymentIntentId));
    expect(payment!.status).toBe('requires_payment_method');
    const denied = await db().select().from(auditEvents).where(eq(auditEvents.action, 'payment.webhook'));
    expect(denied.some((e) => e.outcome === 'denied')).toBe(true);
  });

  it('refundOrder refunds at Stripe once, however often it is asked', async () => {
    const { paymentIntentId } = await newIntent();
    stripeApi.succeed(paymentIntentId);
    const purchase = (await call(buyer, 'POST', '/api/payments/complete', { paymentIntentId })).json()
      .purchase;
    const [a, b] = await Promise.all([
      ctx.services.orders.refundOrder(purchase.id, 'Not accepted in time.'),
      ctx.services.orders.refundOrder(purchase.id, 'Not accepted in time.'),
    ]);
    expect(a.purchase.orderStatus).toBe('refunded');
    expect(b.purchase.orderStatus).toBe('refunded');
    expect([a.refundedNow, b.refundedNow].sort()).toEqual([false, true]);
    await ctx.services.orders.refundOrder(purchase.id, 'Not accepted in time.');
    const made = [...stripeApi.refunds.values()].filter((r) => r.payment_intent === paymentIntentId);
    expect(made).toHaveLength(1);
    expect(made[0]!.amount).toBe(priceCents);
    const [payment] = await db().select().from(payments).where(eq(payments.intentId, paymentIntentId));
    expect(payment).toMatchObject({ refundedCents: priceCents, refundId: made[0]!.id });
  });

  it('an unpaid order resumes its one Stripe intent on every Make Payment', async () => {
    const order = (await call(buyer, 'POST', '/api/orders', { serviceId, providerId, studyId })).json();
    const first = (
      await call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id })
    ).json();
    const again = (
      await call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id })
    ).json();
    expect(again.paymentIntentId).toBe(first.paymentIntentId);
    expect(again.clientSecret).toBe(first.clientSecret);
    stripeApi.succeed(first.paymentIntentId);
    expect((await webhook('payment_intent.succeeded', first.paymentIntentId).send()).statusCode).toBe(200);
    const list = (await call(buyer, 'GET', `/api/purchases/user/${buyer.id}`)).json() as Array<{
      id: string;
      orderStatus: string;
    }>;
    expect(list.find((p) => p.id === order.id)?.orderStatus).toBe('pending_approval');
  });
});
