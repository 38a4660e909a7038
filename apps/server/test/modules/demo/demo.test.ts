import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orders, studies, users } from '../../../src/db/schema/index';
import { ensureDemoData } from '../../../src/modules/demo/demo.service';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let buyer: Patient;
const db = () => ctx.services.database.db;
const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  ctx.app.inject({ method, url, headers: buyer.auth, ...(payload ? { payload } : {}) });

beforeAll(async () => {
  ctx = await createTestContext({ DEMO_DATA: 'true' });
  await ensureDemoData(ctx.services);
  buyer = await newPatient(ctx, 'buyer-demo@example.com');
}, 60_000);
afterAll(async () => ctx?.close());

describe('npm run demo (DEMO_DATA=true)', () => {
  it('adds a directory labelled Demo, once', async () => {
    const directory = (await call('GET', '/api/providers')).json().data as Array<{
      name: string;
      kind: string;
      demo: boolean;
    }>;
    const demo = directory.filter((p) => p.demo);
    expect(demo.map((p) => p.kind).sort()).toEqual(['organisation', 'professional', 'professional']);
    for (const p of demo) expect(p.name).toMatch(/\(Demo\)$/);
    // What is not demo is the platform's own automated analysis, and nothing invented.
    expect(directory.filter((p) => !p.demo).map((p) => p.kind)).toEqual(['automated']);
    await ensureDemoData(ctx.services);
    expect((await call('GET', '/api/providers')).json().data).toHaveLength(directory.length);
  });

  it('gives the demo patient sample studies named as such', async () => {
    const [patient] = await db()
      .select()
      .from(users)
      .where(eq(users.emailNormalized, 'demo.patient@demo.invalid'));
    expect(patient!.name).toBe('Demo Patient (Demo)');
    const theirs = await db().select().from(studies).where(eq(studies.ownerId, patient!.id));
    expect(theirs).toHaveLength(2);
    for (const s of theirs) expect(s.studyDescription).toMatch(/^Demo: synthetic/);
  });

  it('sells demo readings that a demo reader really accepts and delivers, labelled Demo', async () => {
    const expert = (
      (await call('GET', '/api/services')).json() as Array<{
        id: string;
        name: string;
        providers: Array<{ id: string; demo: boolean; name: string }>;
      }>
    ).find((s) => s.name === 'Expert Review')!;
    const provider = expert.providers.find((p) => p.demo)!;
    expect(provider.name).toMatch(/\(Demo\)$/);
    const studyUid = uid();
    const seriesUid = uid();
    const [studyId] = await ingestFiles(ctx, buyer.id, [
      makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: 1, modality: 'CT' }),
    ]);
    const intent = await call('POST', '/api/payments/create-payment-intent', {
      serviceId: expert.id,
      providerId: provider.id,
      studyId,
    });
    expect(intent.statusCode, intent.body).toBe(200);
    const paid = await call('POST', '/api/payments/sandbox/confirm', {
      clientSecret: intent.json().clientSecret,
      card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
    });
    const orderId = paid.json().purchase.id as string;
    expect(paid.json().purchase.provider).toMatchObject({ demo: true });
    await eventually(async () => {
      const [o] = await db().select().from(orders).where(eq(orders.id, orderId));
      return o?.status === 'completed';
    }, 30_000);
    const report = await call('GET', `/api/orders/${orderId}/report`);
    expect(report.statusCode).toBe(200);
    expect(report.headers['content-type']).toMatch(/pdf/);
  });
});
