import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, notifications, orders } from '../../../src/db/schema/index';
import { completeProfile, offeringProfessional, verifiedProfessional } from '../../helpers/directory';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let patient: Patient;
let studyId: string;

const db = () => ctx.services.database.db;
const call = (
  p: Patient | undefined,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
) => ctx.app.inject({ method, url, headers: p?.auth ?? {}, ...(payload ? { payload } : {}) });

interface ServiceDto {
  id: string;
  name: string;
  providers: Array<{
    id: string;
    name: string;
    price: number;
    kind: string;
    turnaround: string;
    modalities: string[];
  }>;
}
const catalogue = async (): Promise<ServiceDto[]> => (await call(patient, 'GET', '/api/services')).json();
const offersOf = async (providerId: string) =>
  (await catalogue()).filter((s) => s.providers.some((p) => p.id === providerId)).map((s) => s.name);

/** Pays for `serviceName` from `providerId` with the sandbox's succeeding card. */
async function buy(serviceName: string, providerId: string) {
  const service = (await catalogue()).find((s) => s.name === serviceName)!;
  const intent = await call(patient, 'POST', '/api/payments/create-payment-intent', {
    serviceId: service.id,
    providerId,
    studyId,
  });
  expect(intent.statusCode, intent.body).toBe(200);
  return { service, intent: intent.json() as { clientSecret: string } };
}
async function pay(clientSecret: string) {
  const paid = await call(patient, 'POST', '/api/payments/sandbox/confirm', {
    clientSecret,
    card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
  });
  expect(paid.statusCode, paid.body).toBe(200);
  return paid.json().purchase as { id: string; orderStatus: string };
}
const statusOf = async (orderId: string) =>
  (await db().select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)))[0]!.status;

beforeAll(async () => {
  ctx = await createTestContext();
  patient = await newPatient(ctx, 'patient-offers@example.com');
  const studyUid = uid();
  const seriesUid = uid();
  [studyId] = (await ingestFiles(
    ctx,
    patient.id,
    [1, 2].map((n) => makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: n, modality: 'CT' })),
  )) as [string];
}, 60_000);
afterAll(async () => ctx?.close());

describe('a fresh installation', () => {
  it('sells only what the platform itself delivers: its automated analysis, clearly named so', async () => {
    const list = await catalogue();
    expect(list.map((s) => s.name).sort()).toEqual(['AI Chest X-Ray Screening', 'AI Quick Analysis']);
    for (const s of list) {
      expect(s.providers).toHaveLength(1);
      expect(s.providers[0]).toMatchObject({ kind: 'automated' });
      expect(s.providers[0]!.name).toMatch(/automated/i);
    }
    expect(list.find((s) => s.name === 'AI Quick Analysis')!.providers[0]!.price).toBe(49.99);
    const directory = (await call(patient, 'GET', '/api/providers')).json().data as Array<{ kind: string }>;
    expect(directory.map((p) => p.kind)).toEqual(['automated']);
  });
});

describe('a professional’s own profile and offers', () => {
  let pro: Patient;

  it('is made from the registration once an admin verified the account; others have none', async () => {
    // An approved professional who has not confirmed their email has no profile yet: nothing of
    // theirs could be delivered.
    const unconfirmed = await verifiedProfessional(ctx, 'unconfirmed-offers@example.com');
    await ctx.services.users.update(unconfirmed.id, { emailVerifiedAt: null });
    expect((await call(unconfirmed, 'GET', '/api/professional/profile')).statusCode).toBe(404);
    // A patient has no profile: the one 404.
    expect((await call(patient, 'GET', '/api/professional/profile')).statusCode).toBe(404);
    expect((await call(patient, 'GET', '/api/professional/offers')).statusCode).toBe(404);

    pro = await verifiedProfessional(ctx, 'pro-offers@example.com', {
      name: 'Dr. Rosa Lind',
      licenseState: 'CA',
    });
    const res = await call(pro, 'GET', '/api/professional/profile');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Dr. Rosa Lind',
      specialty: 'Radiology',
      hospital: 'General',
      position: 'Attending',
      licenseState: 'CA',
      publishedAt: null,
      offersPausedAt: null,
      rating: null,
      ratingCount: 0,
    });
    expect(res.json().missing.length).toBeGreaterThan(0);
  });

  it('cannot be published incomplete; unpublished it is not listed nor sold', async () => {
    const refused = await call(pro, 'POST', '/api/professional/profile/publish', { published: true });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatch(/description/);
    const offers = (await call(pro, 'GET', '/api/professional/offers')).json() as Array<{
      serviceId: string;
      serviceName: string;
      serviceType: string;
      defaultPrice: number;
    }>;
    // A person reads these; the automated services are not theirs to sell.
    expect(offers.every((o) => o.serviceType !== 'AI')).toBe(true);
    const expert = offers.find((o) => o.serviceName === 'Expert Review')!;
    expect(expert.defaultPrice).toBe(199.99);
    const saved = await call(pro, 'PUT', `/api/professional/offers/${expert.serviceId}`, {
      price: 180,
      turnaround: '2-3 days',
      modalities: ['CT'],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().offer).toMatchObject({
      price: 180,
      turnaround: '2-3 days',
      modalities: ['CT'],
      status: 'live',
    });
    const providerId = (await call(pro, 'GET', '/api/professional/profile')).json().providerId as string;
    expect(await offersOf(providerId)).toEqual([]);
    expect(
      (await call(patient, 'GET', `/api/providers`)).json().data.map((p: { id: string }) => p.id),
    ).not.toContain(providerId);
  });

  it('once complete and published, is listed with its Verified badge and its offer is sold on its terms', async () => {
    const saved = await call(pro, 'PUT', '/api/professional/profile', completeProfile);
    expect(saved.statusCode, saved.body).toBe(200);
    const published = await call(pro, 'POST', '/api/professional/profile/publish', { published: true });
    expect(published.statusCode, published.body).toBe(200);
    const providerId = published.json().providerId as string;
    const listed = (
      (await call(patient, 'GET', '/api/providers')).json().data as Array<Record<string, unknown>>
    ).find((p) => p.id === providerId)!;
    expect(listed).toMatchObject({
      name: 'Dr. Rosa Lind',
      kind: 'professional',
      hospital: 'General',
      rating: null,
      ratingCount: 0,
      onPlatform: true,
      verified: { licenseState: 'CA' },
    });
    const expert = (await catalogue()).find((s) => s.name === 'Expert Review')!;
    expect(expert.providers).toEqual([
      expect.objectContaining({ id: providerId, price: 180, turnaround: '2-3 days', modalities: ['CT'] }),
    ]);
    // A modality the service does not read, and an offer of an automated service, are refused.
    const ai = (await catalogue()).find((s) => s.name === 'AI Quick Analysis')!;
    expect(
      (
        await call(pro, 'PUT', `/api/professional/offers/${ai.id}`, {
          price: 10,
          turnaround: '1 hour',
          modalities: ['CT'],
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await call(pro, 'PUT', `/api/professional/offers/${expert.id}`, {
          price: 180,
          turnaround: '2-3 days',
          modalities: ['PET'],
        })
      ).statusCode,
    ).toBe(422);
    // Another professional cannot touch it: their own offers are all they see.
    const other = await verifiedProfessional(ctx, 'other-offers@example.com');
    const theirs = (await call(other, 'GET', '/api/professional/offers')).json() as Array<{ offer: unknown }>;
    expect(theirs.every((o) => o.offer === null)).toBe(true);
  });

  it('withdrawing an offer stops its sale; an offer an admin retired stays retired', async () => {
    const providerId = (await call(pro, 'GET', '/api/professional/profile')).json().providerId as string;
    const expert = (await catalogue()).find((s) => s.name === 'Expert Review')!;
    const withdrawn = await call(pro, 'DELETE', `/api/professional/offers/${expert.id}`);
    expect(withdrawn.json().offer.status).toBe('withdrawn');
    expect(await offersOf(providerId)).toEqual([]);
    // What the professional chose to stop, an admin does not put back on sale.
    const admin = await newPatient(ctx, 'admin0-offers@example.com');
    await ctx.services.users.update(admin.id, { role: 'admin' });
    const restore = await call(
      admin,
      'POST',
      `/api/admin/services/${expert.id}/offers/${providerId}/restore`,
    );
    expect(restore.statusCode).toBe(409);
    expect(await offersOf(providerId)).toEqual([]);
    const back = await call(pro, 'PUT', `/api/professional/offers/${expert.id}`, {
      price: 185,
      turnaround: '2-3 days',
      modalities: ['CT'],
    });
    expect(back.json().offer).toMatchObject({ status: 'live', price: 185 });
    expect(await offersOf(providerId)).toEqual(['Expert Review']);
    const audit = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'service.offer_withdraw'), eq(auditEvents.actorId, pro.id)));
    expect(audit).toHaveLength(1);
  });
});

describe('only deliverable offers are sold', () => {
  it('a professional who pauses is no longer purchasable, and an order paid just before is refunded at once', async () => {
    const pro = await offeringProfessional(ctx, 'pauser-offers@example.com', { services: ['Expert Review'] });
    const { intent } = await buy('Expert Review', pro.providerId);
    const order = await pay(intent.clientSecret);
    expect(order.orderStatus).toBe('pending_approval');
    // A second payment started before the pause but completed after it.
    const late = await buy('Expert Review', pro.providerId);

    const paused = await call(pro, 'POST', '/api/professional/offers/pause', { paused: true });
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json().offersPausedAt).not.toBeNull();
    expect(await statusOf(order.id)).toBe('refunded');
    const told = await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, patient.id), eq(notifications.title, 'Order refunded')));
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(await offersOf(pro.providerId)).toEqual([]);
    const refused = await call(patient, 'POST', '/api/payments/create-payment-intent', {
      serviceId: late.service.id,
      providerId: pro.providerId,
      studyId,
    });
    expect(refused.statusCode).toBe(404);
    const lateOrder = await pay(late.intent.clientSecret);
    expect(await statusOf(lateOrder.id)).toBe('refunded');

    await call(pro, 'POST', '/api/professional/offers/pause', { paused: false });
    expect(await offersOf(pro.providerId)).toEqual(['Expert Review']);
  });

  it('a professional disabled by an admin: their waiting and accepted orders are refunded at once', async () => {
    const pro = await offeringProfessional(ctx, 'disabled-offers@example.com', {
      services: ['Expert Review'],
    });
    const waiting = await pay((await buy('Expert Review', pro.providerId)).intent.clientSecret);
    const accepted = await pay((await buy('Expert Review', pro.providerId)).intent.clientSecret);
    expect((await call(pro, 'POST', `/api/professional/orders/${accepted.id}/accept`)).statusCode).toBe(200);
    const admin = await newPatient(ctx, 'admin-offers@example.com');
    await ctx.services.users.update(admin.id, { role: 'admin' });
    const disabled = await call(admin, 'POST', `/api/admin/users/${pro.id}/disable`, {});
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect(await statusOf(waiting.id)).toBe('refunded');
    expect(await statusOf(accepted.id)).toBe('refunded');
    expect(await offersOf(pro.providerId)).toEqual([]);
    // A disabled professional leaves the directory too.
    const directory = (await call(patient, 'GET', '/api/providers')).json().data as Array<{ id: string }>;
    expect(directory.map((p) => p.id)).not.toContain(pro.providerId);
  });

  it('an admin cannot make an organisation sellable without someone to deliver', async () => {
    const admin = await newPatient(ctx, 'admin2-offers@example.com');
    await ctx.services.users.update(admin.id, { role: 'admin' });
    const created = await call(admin, 'POST', '/api/admin/providers', {
      name: 'Harbour Teleradiology',
      specialty: 'Radiology',
      description: '',
      yearsOfExperience: '5',
      credentials: [],
      location: { street: '', city: 'Leeds', state: '', zipCode: '', country: 'United Kingdom' },
      academicProfile: { rank: '', numberOfPublications: 0 },
      contactInformation: { email: 'harbour@example.org', mobile: '', website: '' },
      workingHours: { weekdays: '', weekends: '' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const orgId = created.json().data.id as string;
    const services = (await call(admin, 'GET', '/api/admin/services')).json().data as Array<{
      id: string;
      name: string;
    }>;
    const expert = services.find((s) => s.name === 'Expert Review')!;
    const ai = services.find((s) => s.name === 'AI Quick Analysis')!;
    const noReader = await call(admin, 'POST', `/api/admin/services/${expert.id}/offers`, {
      providerId: orgId,
      price: 150,
    });
    expect(noReader.statusCode).toBe(422);
    expect(noReader.json().error).toMatch(/link a verified professional/);
    const noVendor = await call(admin, 'POST', `/api/admin/services/${ai.id}/offers`, {
      providerId: orgId,
      price: 40,
    });
    expect(noVendor.statusCode).toBe(422);
    // A professional's own profile is theirs: an admin neither adds offers to it nor edits it.
    const pro = await offeringProfessional(ctx, 'own-offers@example.com', { services: [] });
    expect(
      (
        await call(admin, 'POST', `/api/admin/services/${expert.id}/offers`, {
          providerId: pro.providerId,
          price: 1,
        })
      ).statusCode,
    ).toBe(422);
    // Linked to a verified professional, the organisation can sell readings.
    const reader = await verifiedProfessional(ctx, 'org-reader-offers@example.com');
    expect(
      (
        await call(admin, 'PUT', `/api/admin/providers/${orgId}/link`, {
          email: 'org-reader-offers@example.com',
        })
      ).statusCode,
    ).toBe(200);
    const added = await call(admin, 'POST', `/api/admin/services/${expert.id}/offers`, {
      providerId: orgId,
      price: 150,
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(await offersOf(orgId)).toEqual(['Expert Review']);
    // Admins retire an offer; the professional cannot bring an admin-retired offer back.
    const ownExpert = await call(pro, 'PUT', `/api/professional/offers/${expert.id}`, {
      price: 170,
      turnaround: '24-48 hours',
      modalities: ['CT'],
    });
    expect(ownExpert.statusCode).toBe(200);
    const retired = await call(
      admin,
      'POST',
      `/api/admin/services/${expert.id}/offers/${pro.providerId}/retire`,
    );
    expect(retired.statusCode, retired.body).toBe(200);
    const offer = (
      retired.json().data.offers as Array<{ providerId: string; retiredBy: string | null; sellable: boolean }>
    ).find((o) => o.providerId === pro.providerId)!;
    expect(offer).toMatchObject({ retiredBy: 'admin', sellable: false });
    expect(
      (
        await call(pro, 'PUT', `/api/professional/offers/${expert.id}`, {
          price: 170,
          turnaround: '1 day',
          modalities: ['CT'],
        })
      ).statusCode,
    ).toBe(409);
    const restored = await call(
      admin,
      'POST',
      `/api/admin/services/${expert.id}/offers/${pro.providerId}/restore`,
    );
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await offersOf(pro.providerId)).toEqual(['Expert Review']);
    expect(reader.id).toBeTruthy();
  });
});
