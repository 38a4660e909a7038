import type { InjectOptions } from 'fastify';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, orders } from '../../../src/db/schema/index';
import { hashPassword } from '../../../src/modules/auth/password';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { verifiedProfessional } from '../../helpers/directory';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
/** The test clock: moved forward instead of waiting. */
let offsetMs = 0;
const ADMIN_EMAIL = 'catalogue-admin@example.com';
const ADMIN_PASSWORD = 'Adm1n!Passw0rd';
let adminId: string;
let adminToken: string;
let buyer: Patient;
let providerIds: string[];

interface AdminServiceDto {
  id: string;
  name: string;
  scope: string;
  type: string;
  requiredData: string[];
  supportedModalities: string[];
  retiredAt: string | null;
  offers: Array<{ providerId: string; providerName: string; price: number; retiredAt: string | null }>;
}
interface ServiceDto {
  id: string;
  name: string;
  providers: Array<{ id: string; price: number }>;
}

const db = () => ctx.services.database.db;
const asAdmin = (opts: InjectOptions, t = adminToken) =>
  ctx.app.inject({ ...opts, headers: { authorization: `Bearer ${t}`, ...(opts.headers ?? {}) } });
const publicCatalogue = async (): Promise<ServiceDto[]> =>
  (await ctx.app.inject({ method: 'GET', url: '/api/services', headers: buyer.auth })).json();
const adminList = async (): Promise<AdminServiceDto[]> =>
  (await asAdmin({ method: 'GET', url: '/api/admin/services' })).json().data;

async function signIn(): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, captcha: await ctx.captcha(ADMIN_EMAIL) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.authToken as string;
}

const input = (over: Record<string, unknown> = {}) => ({
  name: 'Thoracic CT Review',
  scope: 'thoracic_imaging',
  description: 'A thoracic radiologist reads a chest CT.',
  typicalTime: '2-3 days',
  requiredData: ['Chest CT series', 'Previous report, if any'],
  type: 'Expert',
  supportedModalities: ['CT'],
  ...over,
});

async function auditRows(action: string) {
  return db().select().from(auditEvents).where(eq(auditEvents.action, action)).orderBy(desc(auditEvents.at));
}

async function createService(over: Record<string, unknown> = {}): Promise<AdminServiceDto> {
  const res = await asAdmin({ method: 'POST', url: '/api/admin/services', payload: input(over) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const organisation = (name: string, email: string) => ({
  name,
  specialty: 'Radiology',
  description: 'A teleradiology group.',
  yearsOfExperience: '10',
  credentials: [],
  location: { street: '', city: 'Leeds', state: '', zipCode: '', country: 'United Kingdom' },
  academicProfile: { rank: '', numberOfPublications: 0 },
  contactInformation: { email, mobile: '', website: '' },
  workingHours: { weekdays: '', weekends: '' },
});

async function addOffer(serviceId: string, providerId: string, price: number) {
  return asAdmin({
    method: 'POST',
    url: `/api/admin/services/${serviceId}/offers`,
    payload: { providerId, price },
  });
}

beforeAll(async () => {
  ctx = await createTestContext({}, { now: () => new Date(Date.now() + offsetMs) });
  const created = await ctx.services.users.insertIfEmailFree({
    email: ADMIN_EMAIL,
    emailNormalized: ADMIN_EMAIL,
    passwordHash: await hashPassword(ADMIN_PASSWORD),
    name: 'Administrator',
    role: 'admin',
    accountStatus: 'active',
    emailVerifiedAt: new Date(),
  });
  adminId = created!.id;
  adminToken = await signIn();
  buyer = await newPatient(ctx, 'catalogue-buyer@example.com');
  // Organisations an admin added, each linked to a verified professional who reads for it.
  providerIds = [];
  for (const n of [1, 2, 3]) {
    const email = `reader${n}-catalogue@example.com`;
    await verifiedProfessional(ctx, email);
    const created = await asAdmin({
      method: 'POST',
      url: '/api/admin/providers',
      payload: organisation(`Imaging Group ${n}`, `group${n}@example.org`),
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    const linked = await asAdmin({
      method: 'PUT',
      url: `/api/admin/providers/${id}/link`,
      payload: { email },
    });
    expect(linked.statusCode, linked.body).toBe(200);
    providerIds.push(id);
  }
  // The groups offer some of the catalogue (two of them Cardiac CT Review).
  for (const [name, groups] of [
    ['Expert Review', [0]],
    ['Neuro MRI Second Opinion', [0]],
    ['Cardiac CT Review', [0, 1]],
    ['Pediatric Imaging Review', [2]],
  ] as const) {
    const service = (await adminList()).find((s) => s.name === name)!;
    for (const g of groups) {
      const res = await addOffer(service.id, providerIds[g]!, 200 + g);
      expect(res.statusCode, res.body).toBe(201);
    }
  }
  // AI services are the platform's own: its automated analysis offers them.
  providerIds.push((await ctx.services.providers.listDirectory({})).find((p) => p.kind === 'automated')!.id);
}, 60_000);
afterAll(async () => ctx?.close());

describe('Admin → Services', () => {
  it('is missing for non-admins and signed-out callers', async () => {
    const [service] = await adminList();
    const routes: Array<[InjectOptions['method'], string, unknown?]> = [
      ['GET', '/api/admin/services'],
      ['POST', '/api/admin/services', input({ name: 'Sneaky' })],
      ['PUT', `/api/admin/services/${service!.id}`, input({ name: 'Sneaky' })],
      ['POST', `/api/admin/services/${service!.id}/retire`],
      ['POST', `/api/admin/services/${service!.id}/offers`, { providerId: providerIds[0], price: 1 }],
      ['PUT', `/api/admin/services/${service!.id}/offers/${service!.offers[0]!.providerId}`, { price: 1 }],
      ['POST', `/api/admin/services/${service!.id}/offers/${service!.offers[0]!.providerId}/retire`],
    ];
    for (const [method, url, payload] of routes) {
      const res = await ctx.app.inject({
        method,
        url,
        headers: buyer.auth,
        ...(payload ? { payload: payload as Record<string, unknown> } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      const anon = await ctx.app.inject({
        method,
        url,
        ...(payload ? { payload: payload as Record<string, unknown> } : {}),
      });
      expect(anon.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await adminList()).find((s) => s.id === service!.id)!.retiredAt).toBeNull();
  });

  it('lists every seeded service with its offers in dollars', async () => {
    const list = await adminList();
    const ai = list.find((s) => s.name === 'AI Quick Analysis')!;
    expect(ai).toMatchObject({
      scope: 'ai_analysis',
      type: 'AI',
      supportedModalities: ['X-Ray', 'CT', 'MRI'],
    });
    expect(ai.offers.map((o) => o.price)).toContain(49.99);
  });

  it('creates a service, which users see once a provider offers it, and edits it', async () => {
    const created = await createService();
    expect(created).toMatchObject({ name: 'Thoracic CT Review', retiredAt: null, offers: [] });
    expect((await publicCatalogue()).some((s) => s.id === created.id)).toBe(false);

    const offered = await addOffer(created.id, providerIds[0]!, 149.5);
    expect(offered.statusCode, offered.body).toBe(201);
    expect(offered.json().data.offers).toMatchObject([{ providerId: providerIds[0], price: 149.5 }]);
    const shown = (await publicCatalogue()).find((s) => s.id === created.id)!;
    expect(shown.providers).toMatchObject([{ id: providerIds[0], price: 149.5 }]);

    const edit = await asAdmin({
      method: 'PUT',
      url: `/api/admin/services/${created.id}`,
      payload: input({
        name: 'Thoracic CT Second Opinion',
        type: 'Combined',
        requiredData: ['Chest CT series', ' Chest CT series '],
        supportedModalities: ['CT', 'PET'],
      }),
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(edit.json().data).toMatchObject({
      name: 'Thoracic CT Second Opinion',
      type: 'Combined',
      requiredData: ['Chest CT series'],
      supportedModalities: ['CT', 'PET'],
    });
    expect((await auditRows('service.create'))[0]).toMatchObject({
      actorId: adminId,
      targetId: created.id,
      outcome: 'success',
    });
    expect((await auditRows('service.update'))[0]?.details).toMatchObject({
      fields: expect.arrayContaining(['name', 'type', 'requiredData', 'supportedModalities']),
    });
    expect((await auditRows('service.offer_add'))[0]?.details).toMatchObject({
      providerId: providerIds[0],
      priceCents: 14950,
    });
  });

  it('validates services and prices', async () => {
    const bad = async (payload: unknown, url = '/api/admin/services', method: 'POST' | 'PUT' = 'POST') =>
      asAdmin({ method, url, payload: payload as Record<string, unknown> });
    for (const payload of [
      input({ name: '' }),
      input({ scope: 'Not Snake' }),
      input({ type: 'Robot' }),
      input({ supportedModalities: [] }),
      input({ description: 'x'.repeat(2001) }),
      { ...input(), extra: true },
    ])
      expect((await bad(payload)).statusCode, JSON.stringify(payload)).toBe(400);
    // Names are unique (any letter case).
    const dup = await bad(input({ name: 'expert review' }));
    expect(dup.statusCode).toBe(409);

    const service = (await adminList()).find((s) => s.name === 'Expert Review')!;
    const offerUrl = `/api/admin/services/${service.id}/offers`;
    for (const price of [0, -5, 10.001, 'ten', 1_000_000])
      expect((await bad({ providerId: providerIds[5], price }, offerUrl)).statusCode, String(price)).toBe(
        400,
      );
    const reprice = `${offerUrl}/${service.offers[0]!.providerId}`;
    expect((await bad({ price: 19.999 }, reprice, 'PUT')).statusCode).toBe(400);
    // A provider already offering the service is re-priced, not added twice.
    expect((await bad({ providerId: service.offers[0]!.providerId, price: 10 }, offerUrl)).statusCode).toBe(
      409,
    );
    // Not a directory provider.
    expect((await bad({ providerId: crypto.randomUUID(), price: 10 }, offerUrl)).statusCode).toBe(422);
    // Unknown service or offer: 404.
    expect(
      (await bad(input({ name: 'Nobody' }), `/api/admin/services/${crypto.randomUUID()}`, 'PUT')).statusCode,
    ).toBe(404);
    expect((await bad({ price: 10 }, `${offerUrl}/${crypto.randomUUID()}`, 'PUT')).statusCode).toBe(404);
    expect((await bad({ price: 10 }, `/api/admin/services/not-a-uuid/offers/x`, 'PUT')).statusCode).toBe(404);
  });

  it('retires and restores a service: a retired one leaves GET /api/services', async () => {
    const service = (await adminList()).find((s) => s.name === 'Neuro MRI Second Opinion')!;
    const retired = await asAdmin({ method: 'POST', url: `/api/admin/services/${service.id}/retire` });
    expect(retired.statusCode, retired.body).toBe(200);
    expect(retired.json().data.retiredAt).not.toBeNull();
    expect((await publicCatalogue()).some((s) => s.id === service.id)).toBe(false);
    // The admin list keeps it, after the live ones.
    const list = await adminList();
    expect(list.find((s) => s.id === service.id)!.retiredAt).not.toBeNull();
    expect(list.at(-1)!.id).toBe(service.id);
    // It cannot be ordered either.
    expect(
      await ctx.services.analysisServices.findOffer(service.id, service.offers[0]!.providerId),
    ).toBeUndefined();

    const restored = await asAdmin({ method: 'POST', url: `/api/admin/services/${service.id}/restore` });
    expect(restored.json().data.retiredAt).toBeNull();
    expect((await publicCatalogue()).some((s) => s.id === service.id)).toBe(true);
    expect((await auditRows('service.retire'))[0]).toMatchObject({ targetId: service.id, actorId: adminId });
    expect((await auditRows('service.restore'))[0]).toMatchObject({ targetId: service.id });
  });

  it('retires an offer (hidden from users) and adding it again brings it back at the new price', async () => {
    const service = (await adminList()).find((s) => s.name === 'Cardiac CT Review')!;
    const [kept, gone] = service.offers;
    const res = await asAdmin({
      method: 'POST',
      url: `/api/admin/services/${service.id}/offers/${gone!.providerId}/retire`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const offers = (res.json().data as AdminServiceDto).offers;
    expect(offers.find((o) => o.providerId === gone!.providerId)!.retiredAt).not.toBeNull();
    const shown = (await publicCatalogue()).find((s) => s.id === service.id)!;
    expect(shown.providers.map((p) => p.id)).toEqual([kept!.providerId]);
    expect((await auditRows('service.offer_retire'))[0]?.details).toMatchObject({
      providerId: gone!.providerId,
    });

    // The last offer retired: the service is not shown at all.
    await asAdmin({
      method: 'POST',
      url: `/api/admin/services/${service.id}/offers/${kept!.providerId}/retire`,
    });
    expect((await publicCatalogue()).some((s) => s.id === service.id)).toBe(false);

    const back = await addOffer(service.id, gone!.providerId, 310);
    expect(back.statusCode, back.body).toBe(201);
    expect((await publicCatalogue()).find((s) => s.id === service.id)!.providers).toMatchObject([
      { id: gone!.providerId, price: 310 },
    ]);
    expect((await auditRows('service.offer_restore'))[0]?.details).toMatchObject({ priceCents: 31000 });
  });

  it('re-prices an offer for new orders only: an existing order keeps its cost', async () => {
    const studyUid = uid();
    const seriesUid = uid();
    const files = [1, 2].map((n) =>
      makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: n, modality: 'CT' }),
    );
    const [studyId] = await ingestFiles(ctx, buyer.id, files);
    const service = (await publicCatalogue()).find((s) => s.name === 'Expert Review')!;
    const provider = service.providers[0]!;
    const order = (body: Record<string, string>) =>
      ctx.app.inject({ method: 'POST', url: '/api/orders', headers: buyer.auth, payload: body });
    const first = await order({ serviceId: service.id, providerId: provider.id, studyId: studyId! });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().cost).toBe(provider.price);

    const res = await asAdmin({
      method: 'PUT',
      url: `/api/admin/services/${service.id}/offers/${provider.id}`,
      payload: { price: 123.45 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json().data as AdminServiceDto).offers.find((o) => o.providerId === provider.id)!.price).toBe(
      123.45,
    );
    expect(
      (await publicCatalogue()).find((s) => s.id === service.id)!.providers.find((p) => p.id === provider.id)!
        .price,
    ).toBe(123.45);

    const [kept] = await db().select().from(orders).where(eq(orders.id, first.json().id));
    expect(kept!.costCents).toBe(Math.round(provider.price * 100));
    const purchases = await ctx.app.inject({
      method: 'GET',
      url: `/api/purchases/user/${buyer.id}`,
      headers: buyer.auth,
    });
    expect(purchases.json().find((p: { id: string }) => p.id === first.json().id).cost).toBe(provider.price);

    // A new order is made at the new price.
    const second = await order({ serviceId: service.id, providerId: provider.id, studyId: studyId! });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().cost).toBe(123.45);
    expect((await auditRows('service.offer_reprice'))[0]?.details).toMatchObject({
      providerId: provider.id,
      from: Math.round(provider.price * 100),
      to: 12345,
    });
  });

  it('needs a recent sign-in for changes: 403 REAUTH_REQUIRED, reading still allowed', async () => {
    const t = await signIn();
    const service = (await adminList()).find((s) => s.name === 'Pediatric Imaging Review')!;
    offsetMs += 16 * 60_000;
    try {
      const changes: Array<[InjectOptions['method'], string, unknown?]> = [
        ['POST', '/api/admin/services', input({ name: 'Too Late Review' })],
        ['PUT', `/api/admin/services/${service.id}`, input({ name: 'Too Late Review' })],
        ['POST', `/api/admin/services/${service.id}/retire`],
        ['POST', `/api/admin/services/${service.id}/offers`, { providerId: providerIds[3], price: 5 }],
        ['PUT', `/api/admin/services/${service.id}/offers/${service.offers[0]!.providerId}`, { price: 5 }],
      ];
      for (const [method, url, payload] of changes) {
        const res = await asAdmin(
          { method, url, ...(payload ? { payload: payload as Record<string, unknown> } : {}) },
          t,
        );
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().code).toBe('REAUTH_REQUIRED');
      }
      expect((await auditRows('service.admin_change'))[0]).toMatchObject({
        outcome: 'denied',
        actorId: adminId,
      });
      expect((await asAdmin({ method: 'GET', url: '/api/admin/services' }, t)).statusCode).toBe(200);
      const after = (await asAdmin({ method: 'GET', url: '/api/admin/services' }, t)).json()
        .data as AdminServiceDto[];
      expect(after.find((s) => s.id === service.id)).toMatchObject({
        name: 'Pediatric Imaging Review',
        retiredAt: null,
      });
      expect(after.some((s) => s.name === 'Too Late Review')).toBe(false);
    } finally {
      offsetMs -= 16 * 60_000;
    }
  });

  it('holds in the services themselves: a caller that is not a route (a job, another module) cannot skip it', async () => {
    const meta = { requestId: 'direct-call', ip: '127.0.0.1' };
    const session = (await ctx.services.auth.authenticate(await signIn(), meta))!;
    const service = (await adminList()).find((s) => s.name === 'Pediatric Imaging Review')!;
    offsetMs += 16 * 60_000;
    try {
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['catalogue', () => ctx.services.catalogueAdmin.retire(session, service.id, meta)],
        ['help', () => ctx.services.help.admin.delete(session, '00000000-0000-4000-8000-000000000000', meta)],
        ['providers', () => ctx.services.providers.admin.retire(session, providerIds[0]!, meta)],
        ['vendors', () => ctx.services.vendors.admin.remove(session, providerIds[0]!, meta)],
        ['professionals', () => ctx.services.professionals.approve(session, adminId, meta)],
      ];
      for (const [name, call] of calls)
        await expect(call(), name).rejects.toMatchObject({ code: 'REAUTH_REQUIRED' });
      const denied = await db()
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.requestId, 'direct-call'))
        .orderBy(desc(auditEvents.at));
      expect(denied.map((r) => [r.action, r.outcome]).sort()).toEqual(
        [
          ['help.admin_change', 'denied'],
          ['provider.admin_change', 'denied'],
          ['provider.admin_change', 'denied'],
          ['service.admin_change', 'denied'],
          ['user.status_change', 'denied'],
        ].sort(),
      );
      expect((await adminList()).find((s) => s.id === service.id)?.retiredAt).toBeNull();
    } finally {
      offsetMs -= 16 * 60_000;
    }
  });
});
