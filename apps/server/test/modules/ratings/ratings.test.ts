import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, providerRatings } from '../../../src/db/schema/index';
import { offeringProfessional, type DirectoryProfessional } from '../../helpers/directory';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let patient: Patient;
let other: Patient;
let admin: Patient;
let pro: DirectoryProfessional;
let expertId: string;

const call = (p: Patient | undefined, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: p?.auth ?? {}, ...(payload ? { payload } : {}) });

async function study(owner: Patient): Promise<string> {
  const studyUid = uid();
  const seriesUid = uid();
  const [id] = await ingestFiles(
    ctx,
    owner.id,
    [1, 2].map((n) => makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: n, modality: 'CT' })),
  );
  return id!;
}

/** An Expert Review bought by `buyer`; delivered by the professional unless `deliver` is false. */
async function order(buyer: Patient, deliver = true): Promise<string> {
  const intent = await call(buyer, 'POST', '/api/payments/create-payment-intent', {
    serviceId: expertId,
    providerId: pro.providerId,
    studyId: await study(buyer),
  });
  expect(intent.statusCode, intent.body).toBe(200);
  const paid = await call(buyer, 'POST', '/api/payments/sandbox/confirm', {
    clientSecret: intent.json().clientSecret,
    card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
  });
  const id = paid.json().purchase.id as string;
  if (deliver) {
    expect((await call(pro, 'POST', `/api/professional/orders/${id}/accept`)).statusCode).toBe(200);
    const delivered = await call(pro, 'POST', `/api/professional/orders/${id}/deliver`, {
      findings: 'No acute findings.',
      impression: 'Normal study.',
      recommendation: '',
    });
    expect(delivered.statusCode, delivered.body).toBe(200);
  }
  return id;
}

const providerCard = async (who: Patient) =>
  (
    (await call(who, 'GET', '/api/providers')).json().data as Array<{
      id: string;
      rating: number | null;
      ratingCount: number;
    }>
  ).find((p) => p.id === pro.providerId)!;

beforeAll(async () => {
  ctx = await createTestContext();
  patient = await newPatient(ctx, 'patient-ratings@example.com');
  other = await newPatient(ctx, 'other-ratings@example.com');
  admin = await newPatient(ctx, 'admin-ratings@example.com');
  await ctx.services.users.update(admin.id, { role: 'admin' });
  pro = await offeringProfessional(ctx, 'pro-ratings@example.com', { services: ['Expert Review'] });
  const services = (await call(patient, 'GET', '/api/services')).json() as Array<{
    id: string;
    name: string;
  }>;
  expertId = services.find((s) => s.name === 'Expert Review')!.id;
}, 60_000);
afterAll(async () => ctx?.close());

describe('ratings are earned', () => {
  let first: string;

  it('a provider without ratings has none', async () => {
    expect(await providerCard(patient)).toMatchObject({ rating: null, ratingCount: 0 });
    const offer = (
      (await call(patient, 'GET', '/api/services')).json() as Array<{
        name: string;
        providers: Array<{ id: string; rating: number | null; ratingCount: number }>;
      }>
    )
      .find((s) => s.name === 'Expert Review')!
      .providers.find((p) => p.id === pro.providerId)!;
    expect(offer).toMatchObject({ rating: null, ratingCount: 0 });
  });

  it('only the buyer rates, only once the order is completed, 1 to 5 stars', async () => {
    const open = await order(patient, false);
    expect((await call(patient, 'PUT', `/api/orders/${open}/rating`, { stars: 5 })).statusCode).toBe(404);
    first = await order(patient);
    for (const stars of [0, 6, 4.5])
      expect(
        (await call(patient, 'PUT', `/api/orders/${first}/rating`, { stars })).statusCode,
        String(stars),
      ).toBe(400);
    for (const who of [other, pro, admin])
      expect((await call(who, 'PUT', `/api/orders/${first}/rating`, { stars: 1 })).statusCode).toBe(404);
    expect((await call(undefined, 'PUT', `/api/orders/${first}/rating`, { stars: 1 })).statusCode).toBe(401);
    const rated = await call(patient, 'PUT', `/api/orders/${first}/rating`, {
      stars: 4,
      comment: 'Clear <b>report</b>, quick.',
    });
    expect(rated.statusCode, rated.body).toBe(200);
    expect(rated.json()).toMatchObject({ orderId: first, stars: 4, comment: 'Clear <b>report</b>, quick.' });
    expect(await providerCard(other)).toMatchObject({ rating: 4, ratingCount: 1 });
    const purchase = (
      (await call(patient, 'GET', `/api/purchases/user/${patient.id}`)).json() as Array<{
        id: string;
        rating: { stars: number } | null;
      }>
    ).find((p) => p.id === first)!;
    expect(purchase.rating).toMatchObject({ stars: 4 });
  });

  it('is one per order, the mean of all, and editable for 30 days', async () => {
    const second = await order(other);
    expect((await call(other, 'PUT', `/api/orders/${second}/rating`, { stars: 5 })).statusCode).toBe(200);
    expect(await providerCard(patient)).toMatchObject({ rating: 4.5, ratingCount: 2 });
    // Changing it changes the mean, not the count.
    expect((await call(patient, 'PUT', `/api/orders/${first}/rating`, { stars: 2 })).statusCode).toBe(200);
    expect(await providerCard(patient)).toMatchObject({ rating: 3.5, ratingCount: 2 });
    // Given 31 days ago, it can no longer be changed.
    await db(ctx)
      .update(providerRatings)
      .set({ createdAt: new Date(Date.now() - 31 * 86_400_000) })
      .where(eq(providerRatings.orderId, second));
    const late = await call(other, 'PUT', `/api/orders/${second}/rating`, { stars: 1 });
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toBe('Ratings can be changed for 30 days.');
    expect(await providerCard(patient)).toMatchObject({ rating: 3.5, ratingCount: 2 });
    // Rated providers come first, then the unrated ones (whatever their name).
    const unrated = await offeringProfessional(ctx, 'aaron-ratings@example.com', {
      name: 'Aaron Abbott',
      services: ['Expert Review'],
    });
    const ids = ((await call(patient, 'GET', '/api/providers')).json().data as Array<{ id: string }>).map(
      (p) => p.id,
    );
    expect(ids.indexOf(pro.providerId)).toBeLessThan(ids.indexOf(unrated.providerId));
    const audits = await db(ctx)
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'order.rating_update'), eq(auditEvents.targetId, first)));
    expect(audits).toHaveLength(1);
  });

  it('an admin can hide a comment (the stars still count); the comment shows again when changed', async () => {
    const ratings = async () =>
      (await call(other, 'GET', `/api/providers/${pro.providerId}/ratings`)).json() as {
        rating: number;
        ratingCount: number;
        data: Array<{ stars: number; comment: string | null; serviceName: string }>;
      };
    expect(
      (await call(patient, 'PUT', `/api/orders/${first}/rating`, { stars: 2, comment: 'Rude words' }))
        .statusCode,
    ).toBe(200);
    expect((await ratings()).data.map((r) => r.comment)).toContain('Rude words');
    expect((await call(patient, 'GET', '/api/admin/ratings')).statusCode).toBe(404);
    expect(
      (await call(patient, 'PUT', `/api/admin/ratings/${first}/comment`, { hidden: true })).statusCode,
    ).toBe(404);
    const list = (await call(admin, 'GET', '/api/admin/ratings')).json() as Array<{
      orderId: string;
      authorEmail: string;
    }>;
    expect(list.find((r) => r.orderId === first)).toMatchObject({
      authorEmail: 'patient-ratings@example.com',
    });
    const hidden = await call(admin, 'PUT', `/api/admin/ratings/${first}/comment`, { hidden: true });
    expect(hidden.statusCode, hidden.body).toBe(200);
    expect(hidden.json()).toMatchObject({ commentHidden: true, stars: 2 });
    const after = await ratings();
    expect(after.data.map((r) => r.comment)).not.toContain('Rude words');
    expect(after).toMatchObject({ rating: 3.5, ratingCount: 2 });
    expect(after.data.every((r) => r.serviceName === 'Expert Review')).toBe(true);
    expect(
      (await call(patient, 'PUT', `/api/orders/${first}/rating`, { stars: 2, comment: 'Kinder words' }))
        .statusCode,
    ).toBe(200);
    expect((await ratings()).data.map((r) => r.comment)).toContain('Kinder words');
    // Ratings of a provider the user cannot see answer the one 404.
    expect((await call(other, 'GET', `/api/providers/${uid().slice(0, 8)}/ratings`)).statusCode).toBe(404);
  });
});

const db = (c: TestContext) => c.services.database.db;
