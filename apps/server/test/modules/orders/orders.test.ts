import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  auditEvents,
  mailOutbox,
  orders,
  payments,
  sandboxPaymentIntents,
  sandboxRefunds,
} from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { offeringProfessional } from '../../helpers/directory';
import { makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let buyer: Patient;
let other: Patient;
let ctStudy: string;
let mrStudy: string;
let otherStudy: string;

const db = () => ctx.services.database.db;
const call = (p: Patient | undefined, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  ctx.app.inject({
    method,
    url,
    headers: p?.auth ?? {},
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
  });

interface ServiceDto {
  id: string;
  name: string;
  scope: string;
  typicalTime: string;
  supportedModalities: string[];
  providers: Array<{ id: string; name: string; price: number; isConnected: boolean; rating: number }>;
}
let catalogue: ServiceDto[];
const service = (name: string) => catalogue.find((s) => s.name === name)!;

async function newStudy(ownerId: string, modality: string): Promise<string> {
  const studyUid = uid();
  const seriesUid = uid();
  const files = [1, 2].map((n) =>
    makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: n, modality }),
  );
  const [id] = await ingestFiles(ctx, ownerId, files);
  return id!;
}

const card = (number: string, over: Partial<Record<'expiry' | 'cvc' | 'postalCode', string>> = {}) => ({
  number,
  expiry: '12 / 34',
  cvc: '123',
  postalCode: '12345',
  ...over,
});

async function intentFor(p: Patient, name: string, studyId: string, providerIndex = 0) {
  const s = service(name);
  const res = await call(p, 'POST', '/api/payments/create-payment-intent', {
    serviceId: s.id,
    providerId: s.providers[providerIndex]!.id,
    studyId,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { ...(res.json() as { clientSecret: string; paymentIntentId: string; amount: number }), s };
}

const confirm = (p: Patient, clientSecret: string, c: ReturnType<typeof card>) =>
  call(p, 'POST', '/api/payments/sandbox/confirm', { clientSecret, card: c });

beforeAll(async () => {
  ctx = await createTestContext();
  buyer = await newPatient(ctx, 'buyer-orders@example.com');
  other = await newPatient(ctx, 'other-orders@example.com');
  ctStudy = await newStudy(buyer.id, 'CT');
  mrStudy = await newStudy(buyer.id, 'MR');
  otherStudy = await newStudy(other.id, 'CT');
  // Readings are sold only by someone who can deliver them: a verified professional's offers.
  await offeringProfessional(ctx, 'reader-orders@example.com');
  catalogue = (await call(buyer, 'GET', '/api/services')).json();
}, 60_000);
afterAll(async () => ctx?.close());

describe('catalogue', () => {
  it('lists the three services with their prices, times and modalities, and more scopes', () => {
    expect(service('AI Quick Analysis')).toMatchObject({
      typicalTime: '5-10 minutes',
      supportedModalities: ['X-Ray', 'CT', 'MRI'],
    });
    expect(service('AI Quick Analysis').providers.map((p) => p.price)).toContain(49.99);
    expect(service('Expert Review')).toMatchObject({
      typicalTime: '24-48 hours',
      supportedModalities: ['X-Ray', 'CT'],
    });
    expect(service('Expert Review').providers.map((p) => p.price)).toContain(199.99);
    expect(service('Complete Analysis Package')).toMatchObject({ supportedModalities: ['X-Ray', 'MRI'] });
    expect(service('Complete Analysis Package').providers.map((p) => p.price)).toContain(249.99);
    for (const s of catalogue) expect(s.providers.length).toBeGreaterThanOrEqual(1);
    // Services nobody offers (no professional reads cardiac CT here) are not sold.
    expect(catalogue.map((s) => s.name)).not.toContain('Cardiac CT Review');
  });

  it('marks providers of the user’s trusted network as connected', async () => {
    const provider = service('Expert Review').providers[0]!;
    expect(provider.isConnected).toBe(false);
    await call(buyer, 'POST', '/api/users/providers', { providerId: provider.id });
    const again = ((await call(buyer, 'GET', '/api/services')).json() as ServiceDto[]).find(
      (s) => s.name === 'Expert Review',
    )!;
    expect(again.providers.find((p) => p.id === provider.id)!.isConnected).toBe(true);
  });

  it('is for signed-in users only', async () => {
    expect((await call(undefined, 'GET', '/api/services')).statusCode).toBe(401);
  });
});

describe('paying for a purchase', () => {
  it('computes the amount from the offer and refuses a body amount that disagrees', async () => {
    const s = service('Expert Review');
    const p = s.providers[0]!;
    const ok = await call(buyer, 'POST', '/api/payments/create-payment-intent', {
      serviceId: s.id,
      providerId: p.id,
      studyId: ctStudy,
      amount: Math.round(p.price * 100),
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      amount: Math.round(p.price * 100),
      currency: 'usd',
      processor: 'sandbox',
    });
    const tampered = await call(buyer, 'POST', '/api/payments/create-payment-intent', {
      serviceId: s.id,
      providerId: p.id,
      studyId: ctStudy,
      amount: 100,
    });
    expect(tampered.statusCode).toBe(422);
  });

  it('refuses a study of someone else with the one 404', async () => {
    const s = service('Expert Review');
    const res = await call(buyer, 'POST', '/api/payments/create-payment-intent', {
      serviceId: s.id,
      providerId: s.providers[0]!.id,
      studyId: otherStudy,
    });
    expect(res.statusCode).toBe(404);
  });

  it('a 4242 card pays, creates one in-order purchase with the server price, once, and emails a receipt', async () => {
    const { clientSecret, paymentIntentId, s } = await intentFor(buyer, 'Expert Review', ctStudy);
    const first = await confirm(buyer, clientSecret, card('4242 4242 4242 4242'));
    expect(first.statusCode, first.body).toBe(200);
    const result = first.json();
    expect(result.status).toBe('succeeded');
    expect(result.purchase).toMatchObject({
      cost: s.providers[0]!.price,
      refundedAmount: null,
      refundedAt: null,
      orderStatus: 'pending_approval',
      service: { name: 'Expert Review', scope: 'expert_review' },
      provider: { name: s.providers[0]!.name },
      card: { brand: 'visa', last4: '4242' },
    });
    // A double click and the specification's POST /api/purchases create nothing more.
    const again = await confirm(buyer, clientSecret, card('4242 4242 4242 4242'));
    expect(again.json().purchase.id).toBe(result.purchase.id);
    const posted = await call(buyer, 'POST', '/api/purchases', {
      user: buyer.id,
      service: s.id,
      provider: s.providers[0]!.id,
      cost: s.providers[0]!.price,
      orderStatus: 'completed',
      paymentIntentId,
      study: ctStudy,
    });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toMatchObject({ id: result.purchase.id, orderStatus: 'pending_approval' });
    const rows = await db().select().from(orders).where(eq(orders.userId, buyer.id));
    expect(rows.filter((r) => r.id === result.purchase.id)).toHaveLength(1);
    const list = (await call(buyer, 'GET', `/api/purchases/user/${buyer.id}`)).json();
    expect(list.map((p: { id: string }) => p.id)).toContain(result.purchase.id);
    const receipt = await eventually(async () => {
      const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.to, 'buyer-orders@example.com'));
      return mails.find((m) => m.subject === 'Receipt for Expert Review');
    });
    expect(receipt.text).toContain(`$${s.providers[0]!.price.toFixed(2)}`);
    expect(receipt.text).toContain('4242');
    expect(receipt.text).not.toContain('4242 4242');
  });

  it('never stores, logs or echoes the card number', async () => {
    const { clientSecret } = await intentFor(buyer, 'AI Quick Analysis', ctStudy);
    const res = await confirm(buyer, clientSecret, card('4000 0000 0000 0002'));
    expect(res.body).not.toContain('4000000000000002');
    expect(res.body).not.toContain('4000 0000 0000 0002');
    const everything = JSON.stringify([
      await db().select().from(payments),
      await db().select().from(sandboxPaymentIntents),
      await db().select().from(auditEvents),
      await db().select().from(mailOutbox),
    ]);
    expect(everything).not.toMatch(/4242424242424242|4000000000000002|4242 4242 4242 4242/);
  });

  it.each([
    ['4000 0000 0000 0002', {}, 'Your card was declined.'],
    ['4000 0000 0000 9995', {}, 'Your card has insufficient funds.'],
    ['4242 4242 4242 4241', {}, 'Your card number is incorrect.'],
    ['4242 4242 4242 4242', { expiry: '01 / 20' }, "Your card's expiration date is in the past."],
    ['4242 4242 4242 4242', { cvc: '12' }, "Your card's security code is incomplete."],
  ])('%s %j is refused with its message and creates nothing', async (number, over, message) => {
    const before = (await db().select().from(orders).where(eq(orders.userId, buyer.id))).length;
    const { clientSecret } = await intentFor(buyer, 'AI Quick Analysis', ctStudy);
    const res = await confirm(buyer, clientSecret, card(number, over));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'requires_payment_method',
      error: { message },
      purchase: null,
    });
    expect((await db().select().from(orders).where(eq(orders.userId, buyer.id))).length).toBe(before);
    // The same intent can then be paid with a good card, as with Stripe.
    const retry = await confirm(buyer, clientSecret, card('5555 5555 5555 4444'));
    expect(retry.json()).toMatchObject({
      status: 'succeeded',
      purchase: { card: { brand: 'mastercard', last4: '4444' } },
    });
  });

  it('3155 asks for an extra confirmation step; failing it pays nothing, completing it pays', async () => {
    const { clientSecret } = await intentFor(buyer, 'AI Quick Analysis', ctStudy);
    const res = await confirm(buyer, clientSecret, card('4000 0025 0000 3155'));
    expect(res.json()).toMatchObject({ status: 'requires_action', purchase: null });
    const failed = await call(buyer, 'POST', '/api/payments/sandbox/authenticate', {
      clientSecret,
      approve: false,
    });
    expect(failed.json()).toMatchObject({ status: 'requires_payment_method', purchase: null });
    await confirm(buyer, clientSecret, card('4000 0025 0000 3155'));
    const ok = await call(buyer, 'POST', '/api/payments/sandbox/authenticate', {
      clientSecret,
      approve: true,
    });
    expect(ok.json()).toMatchObject({ status: 'succeeded', purchase: { orderStatus: 'in_progress' } });
  });

  it('an order for a study the service cannot read waits for data', async () => {
    const { clientSecret } = await intentFor(buyer, 'Expert Review', mrStudy);
    const res = await confirm(buyer, clientSecret, card('4242 4242 4242 4242'));
    expect(res.json().purchase.orderStatus).toBe('pending_data_upload');
  });

  it('another user cannot confirm, record or read this user’s payments and purchases', async () => {
    const { clientSecret, paymentIntentId, s } = await intentFor(buyer, 'AI Quick Analysis', ctStudy);
    expect((await confirm(other, clientSecret, card('4242 4242 4242 4242'))).statusCode).toBe(404);
    const posted = await call(other, 'POST', '/api/purchases', {
      service: s.id,
      provider: s.providers[0]!.id,
      paymentIntentId,
    });
    expect(posted.statusCode).toBe(404);
    expect((await call(other, 'GET', `/api/purchases/user/${buyer.id}`)).statusCode).toBe(404);
    // Not paid yet: the owner cannot record a purchase either.
    const unpaid = await call(buyer, 'POST', '/api/purchases', {
      service: s.id,
      provider: s.providers[0]!.id,
      paymentIntentId,
    });
    expect(unpaid.statusCode).toBe(409);
  });

  it('POST /api/purchases refuses a tampered cost or another offer', async () => {
    const { clientSecret, paymentIntentId, s } = await intentFor(buyer, 'AI Quick Analysis', ctStudy);
    await confirm(buyer, clientSecret, card('4242 4242 4242 4242'));
    const base = { service: s.id, provider: s.providers[0]!.id, paymentIntentId };
    expect((await call(buyer, 'POST', '/api/purchases', { ...base, cost: 0.5 })).statusCode).toBe(422);
    const expert = service('Expert Review');
    expect((await call(buyer, 'POST', '/api/purchases', { ...base, service: expert.id })).statusCode).toBe(
      422,
    );
  });
});

describe('orders waiting for payment', () => {
  it('Order Now makes an unpaid order, paid later on /billing at the order’s cost', async () => {
    const s = service('Complete Analysis Package');
    const created = await call(buyer, 'POST', '/api/orders', {
      serviceId: s.id,
      providerId: s.providers[0]!.id,
      studyId: mrStudy,
    });
    expect(created.statusCode, created.body).toBe(200);
    const order = created.json();
    expect(order).toMatchObject({ orderStatus: 'awaiting_payment', cost: 249.99, card: null });
    const intent = await call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id });
    expect(intent.json().amount).toBe(24999);
    const paid = await confirm(buyer, intent.json().clientSecret, card('4242 4242 4242 4242'));
    expect(paid.json().purchase).toMatchObject({ id: order.id, orderStatus: 'pending_approval' });
    // Paid: it cannot be paid or cancelled again.
    expect(
      (await call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id })).statusCode,
    ).toBe(404);
    expect((await call(buyer, 'POST', `/api/orders/${order.id}/cancel`)).statusCode).toBe(409);
  });

  it('an unpaid order can be cancelled by its owner only', async () => {
    const s = service('AI Quick Analysis');
    const order = (
      await call(buyer, 'POST', '/api/orders', {
        serviceId: s.id,
        providerId: s.providers[0]!.id,
        studyId: ctStudy,
      })
    ).json();
    expect((await call(other, 'POST', `/api/orders/${order.id}/cancel`)).statusCode).toBe(404);
    const cancelled = await call(buyer, 'POST', `/api/orders/${order.id}/cancel`);
    expect(cancelled.json().orderStatus).toBe('cancelled');
  });

  it('ordering for someone else’s study is the one 404', async () => {
    const s = service('AI Quick Analysis');
    const res = await call(buyer, 'POST', '/api/orders', {
      serviceId: s.id,
      providerId: s.providers[0]!.id,
      studyId: otherStudy,
    });
    expect(res.statusCode).toBe(404);
  });

  it('each Make Payment resumes the order’s one intent, so the order cannot be paid twice', async () => {
    const s = service('Expert Review');
    const order = (
      await call(buyer, 'POST', '/api/orders', {
        serviceId: s.id,
        providerId: s.providers[0]!.id,
        studyId: ctStudy,
      })
    ).json();
    const [a, b] = await Promise.all([
      call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id }),
      call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id }),
    ]);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.json().paymentIntentId).toBe(a.json().paymentIntentId);
    // Of two simultaneous clicks the later secret wins; both name the one intent.
    const c = await call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id });
    expect(c.json().paymentIntentId).toBe(a.json().paymentIntentId);
    const declined = await confirm(buyer, c.json().clientSecret, card('4000 0000 0000 0002'));
    expect(declined.json().status).toBe('requires_payment_method');
    const d = await call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id });
    expect(d.json().paymentIntentId).toBe(a.json().paymentIntentId);
    // The earlier form's secret no longer pays; the latest does.
    expect((await confirm(buyer, c.json().clientSecret, card('4242 4242 4242 4242'))).statusCode).toBe(404);
    const paid = await confirm(buyer, d.json().clientSecret, card('4242 4242 4242 4242'));
    expect(paid.json().purchase).toMatchObject({ id: order.id, orderStatus: 'pending_approval' });
    const rows = await db().select().from(payments).where(eq(payments.orderId, order.id));
    expect(rows).toHaveLength(1);
  });

  it('a second payment that still succeeds for a paid order is refunded automatically', async () => {
    const s = service('Expert Review');
    const order = (
      await call(buyer, 'POST', '/api/orders', {
        serviceId: s.id,
        providerId: s.providers[0]!.id,
        studyId: ctStudy,
      })
    ).json();
    const first = (
      await call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id })
    ).json();
    // The processor reported the first intent cancelled (so a new one is made), yet it is paid later.
    await db()
      .update(payments)
      .set({ status: 'canceled' })
      .where(eq(payments.intentId, first.paymentIntentId));
    const second = (
      await call(buyer, 'POST', '/api/payments/create-payment-intent', { orderId: order.id })
    ).json();
    expect(second.paymentIntentId).not.toBe(first.paymentIntentId);
    const paid = await confirm(buyer, second.clientSecret, card('4242 4242 4242 4242'));
    expect(paid.json().purchase).toMatchObject({ id: order.id });
    const extra = await confirm(buyer, first.clientSecret, card('4242 4242 4242 4242'));
    expect(extra.statusCode).toBe(409);
    expect(extra.json().error).toContain('refunded');
    const [intent] = await db()
      .select()
      .from(sandboxPaymentIntents)
      .where(eq(sandboxPaymentIntents.id, first.paymentIntentId));
    expect(intent!.amountRefundedCents).toBe(first.amount);
    const [row] = await db().select().from(payments).where(eq(payments.intentId, first.paymentIntentId));
    expect(row).toMatchObject({ refundedCents: first.amount });
    // The order stands, paid by the second payment: the refund of the first is not its refund.
    expect(
      (await call(buyer, 'GET', `/api/purchases/user/${buyer.id}`))
        .json()
        .find((p: { id: string }) => p.id === order.id),
    ).toMatchObject({ orderStatus: 'pending_approval', refundedAmount: null, refundedAt: null });
  });

  it('refundOrder refunds a paid order once, moves it to refunded, audits and emails a receipt', async () => {
    const { clientSecret, amount } = await intentFor(buyer, 'AI Quick Analysis', ctStudy);
    const purchase = (await confirm(buyer, clientSecret, card('4242 4242 4242 4242'))).json().purchase;
    const refundOrder = ctx.services.orders.refundOrder;
    const [r1, r2] = await Promise.all([
      refundOrder(purchase.id, 'Declined by the provider.'),
      refundOrder(purchase.id, 'Declined by the provider.'),
    ]);
    expect(r1.purchase.orderStatus).toBe('refunded');
    expect(r2.purchase.orderStatus).toBe('refunded');
    // Exactly one of the two calls did it, and says so.
    expect([r1.refundedNow, r2.refundedNow].sort()).toEqual([false, true]);
    const again = await refundOrder(purchase.id, 'again');
    expect(again).toMatchObject({ refundedNow: false, purchase: { orderStatus: 'refunded' } });
    const [pay] = await db()
      .select()
      .from(payments)
      .where(
        eq(payments.id, (await db().select().from(orders).where(eq(orders.id, purchase.id)))[0]!.paymentId!),
      );
    expect(pay!.refundedCents).toBe(amount);
    expect(
      await db().select().from(sandboxRefunds).where(eq(sandboxRefunds.intentId, pay!.intentId)),
    ).toHaveLength(1);
    const [order] = await db().select().from(orders).where(eq(orders.id, purchase.id));
    expect(order).toMatchObject({ status: 'refunded', refundReason: 'Declined by the provider.' });
    // The purchase lists show what was given back and when, in dollars like the cost.
    expect(r1.purchase).toMatchObject({
      refundedAmount: amount / 100,
      refundedAt: pay!.refundedAt!.toISOString(),
    });
    const listed = (await call(buyer, 'GET', `/api/purchases/user/${buyer.id}`))
      .json()
      .find((p: { id: string }) => p.id === purchase.id);
    expect(listed).toMatchObject({
      orderStatus: 'refunded',
      cost: amount / 100,
      refundedAmount: amount / 100,
      refundedAt: pay!.refundedAt!.toISOString(),
    });
    const audits = await db().select().from(auditEvents).where(eq(auditEvents.targetId, purchase.id));
    expect(audits.filter((e) => e.action === 'order.refund' && e.outcome === 'success')).toHaveLength(1);
    // The receipt goes out through the send-email job, so it lands a moment later.
    const refundReceipts = async () =>
      (await db().select().from(mailOutbox).where(eq(mailOutbox.to, 'buyer-orders@example.com'))).filter(
        (m) => m.subject === 'Refund for AI Quick Analysis' && m.text.includes(purchase.id),
      );
    await eventually(async () => (await refundReceipts()).length > 0);
    const receipts = await refundReceipts();
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.text).toContain(`$${(amount / 100).toFixed(2)}`);
    // An unpaid order has nothing to refund.
    const s = service('AI Quick Analysis');
    const unpaid = (
      await call(buyer, 'POST', '/api/orders', {
        serviceId: s.id,
        providerId: s.providers[0]!.id,
        studyId: ctStudy,
      })
    ).json();
    await expect(refundOrder(unpaid.id, 'x')).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('every payment and order change is audited', async () => {
    const actions = new Set(
      (await db().select().from(auditEvents).where(eq(auditEvents.actorId, buyer.id))).map((e) => e.action),
    );
    for (const a of [
      'payment.intent_create',
      'payment.confirm',
      'order.paid',
      'order.create',
      'order.cancel',
    ])
      expect(actions).toContain(a);
  });

  it('the webhook does not exist without Stripe', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/payments/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(404);
  });
});
