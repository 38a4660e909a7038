import { readFile } from 'node:fs/promises';
import path from 'node:path';
import dicomParser from 'dicom-parser';
import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analysisRuns, auditEvents, instances, notifications, orders } from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { generateSeries } from '../../helpers/dicom-series';
import { FIXTURES, newPatient, type Patient } from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let buyer: Patient;
const db = () => ctx.services.database.db;
const silent = pino({ level: 'silent' });

const call = (p: Patient, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  ctx.app.inject({
    method,
    url,
    headers: p.auth,
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
  });

interface ServiceDto {
  id: string;
  name: string;
  providers: Array<{ id: string; price: number }>;
}

/** Pays for `serviceName` on `studyId` with the sandbox's always-succeeding card; answers the order id. */
async function buy(p: Patient, serviceName: string, studyId: string): Promise<string> {
  const catalogue = (await call(p, 'GET', '/api/services')).json() as ServiceDto[];
  const s = catalogue.find((x) => x.name === serviceName)!;
  const intent = await call(p, 'POST', '/api/payments/create-payment-intent', {
    serviceId: s.id,
    providerId: s.providers[0]!.id,
    studyId,
  });
  expect(intent.statusCode, intent.body).toBe(200);
  const paid = await call(p, 'POST', '/api/payments/sandbox/confirm', {
    clientSecret: intent.json().clientSecret,
    card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
  });
  expect(paid.statusCode, paid.body).toBe(200);
  return paid.json().purchase.id as string;
}

const orderStatus = async (id: string) =>
  (await db().select({ status: orders.status }).from(orders).where(eq(orders.id, id)))[0]!.status;

/** A generated CT series of `count` slices 2 mm apart, without the slices at `missing`. */
function ctSeries(count: number, missing: number[] = []) {
  const s = generateSeries({ count, size: 64 });
  return s.files.filter((_, i) => !missing.includes(i)).map((f) => f.bytes);
}

beforeAll(async () => {
  ctx = await createTestContext();
  buyer = await newPatient(ctx, 'buyer-analysis@example.com');
}, 60_000);
afterAll(async () => ctx?.close());

describe('the automated technical report', () => {
  it('carries the fixture CT’s real slice count and slice thickness', async () => {
    const file = path.join(FIXTURES, 'CT_small.dcm');
    const ds = dicomParser.parseDicom(new Uint8Array(await readFile(file)));
    const thickness = Number.parseFloat(ds.string('x00180050')!);
    const kvp = Number.parseFloat(ds.string('x00180060')!);
    const [studyId] = await ingestFiles(ctx, buyer.id, [file]);
    const report = await ctx.services.analysis.buildReport(studyId!);
    const text = report.sections.map((s) => `${s.heading}\n${s.text}`).join('\n');
    expect(report.automated).toBe(true);
    expect(report.title).toMatch(/automated technical summary \(not a diagnosis\)/);
    expect(text).toContain('It is not a diagnosis');
    expect(text).toContain('Series: 1');
    expect(text).toContain('Images: 1');
    expect(text).toContain(`Slice thickness: ${thickness} mm`);
    expect(text).toContain(`Tube voltage (kVp): ${kvp}`);
    expect(text).toContain('Matrix (rows × columns): 128 × 128');
    expect(text).toMatch(/Image statistics \(middle image, stored values\): min -?\d+, max \d+, mean/);
    expect(report.keyImages!.length).toBeGreaterThanOrEqual(1);
    expect(report.keyImages![0]!.jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  }, 60_000);

  it('measures coverage along the patient axis, finds a gap, and draws key images', async () => {
    const [studyId] = await ingestFiles(ctx, buyer.id, ctSeries(12, [6]));
    const report = await ctx.services.analysis.buildReport(studyId!);
    const text = report.sections.map((s) => s.text).join('\n');
    expect(text).toContain('Images: 11');
    expect(text).toContain('Slice thickness: 2 mm');
    expect(text).toContain('Pixel spacing: 1 × 1 mm');
    expect(text).toContain('11 slice positions from 0 mm to 22 mm (22 mm), usual step 2 mm');
    expect(text).toContain('Gaps: 1 (4 mm after slice position 6)');
    expect(text).toContain('Dose fields: none in the headers');
    // Background 0 and a square of 1000 (helpers/dicom-series.ts).
    expect(text).toMatch(/stored values\): min 0, max 1000, mean/);
    expect(report.keyImages).toHaveLength(3);
    for (const k of report.keyImages!) expect(k.jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  }, 60_000);
});

describe('AI Quick Analysis orders', () => {
  it('completes by itself: the job delivers the report into the study', async () => {
    const [studyId] = await ingestFiles(ctx, buyer.id, ctSeries(8));
    const orderId = await buy(buyer, 'AI Quick Analysis', studyId!);
    await eventually(async () => (await orderStatus(orderId)) === 'completed', 60_000);
    const stored = await db().select().from(instances).where(eq(instances.studyId, studyId!));
    expect(stored).toHaveLength(9);
    expect(stored.some((i) => i.sopClassUid === '1.2.840.10008.5.1.4.1.1.104.1')).toBe(true);
    // The job records its run right after the delivery that completed the order.
    const run = await eventually(async () => {
      const [row] = await db().select().from(analysisRuns).where(eq(analysisRuns.orderId, orderId));
      return row?.status === 'delivered' ? row : undefined;
    });
    expect(run).toMatchObject({ status: 'delivered', attempts: 1 });
    // …and audits it after that.
    const audits = await eventually(async () => {
      const rows = await db()
        .select({ action: auditEvents.action })
        .from(auditEvents)
        .where(eq(auditEvents.targetId, orderId));
      return rows.some((a) => a.action === 'analysis.deliver') ? rows : undefined;
    });
    expect(audits.map((a) => a.action)).toEqual(
      expect.arrayContaining(['analysis.queue', 'analysis.deliver', 'order.report_delivered']),
    );
  }, 90_000);

  it('refunds the order and tells the patient when the analysis keeps failing', async () => {
    const files = ctSeries(4);
    const [studyId] = await ingestFiles(ctx, buyer.id, files);
    // Stored files that vanished: every attempt fails the same way.
    const stored = await db().select().from(instances).where(eq(instances.studyId, studyId!));
    for (const i of stored) await ctx.services.storage.delete(i.storageKey);
    const orderId = await buy(buyer, 'AI Quick Analysis', studyId!);
    let outcome: string | undefined;
    for (let i = 0; i < 10 && outcome !== 'refunded' && outcome !== 'skipped'; i++)
      outcome = await ctx.services.analysis.runOrder(orderId, silent).catch(() => 'retry');
    await eventually(async () => (await orderStatus(orderId)) === 'refunded');
    const [run] = await db().select().from(analysisRuns).where(eq(analysisRuns.orderId, orderId));
    expect(run!.status).toBe('failed');
    const told = await db()
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.userId, buyer.id), eq(notifications.title, 'Analysis could not be completed')),
      );
    expect(told).toHaveLength(1);
    expect(told[0]!.description).toContain('refunded in full');
  }, 90_000);
});

describe('orders not accepted in time', () => {
  it('refunds an Expert Review no professional accepted within the configured time', async () => {
    const [studyId] = await ingestFiles(ctx, buyer.id, ctSeries(3));
    const orderId = await buy(buyer, 'Expert Review', studyId!);
    expect(await orderStatus(orderId)).toBe('pending_approval');
    expect(await ctx.services.analysis.expireUnaccepted(silent)).toBe(0);
    expect(ctx.services.config.orderAcceptMs).toBe(48 * 3600 * 1000);
    await db()
      .update(orders)
      .set({ paidAt: new Date(Date.now() - 49 * 3600 * 1000) })
      .where(eq(orders.id, orderId));
    expect(await ctx.services.analysis.expireUnaccepted(silent)).toBe(1);
    expect(await orderStatus(orderId)).toBe('refunded');
    const told = await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, buyer.id), eq(notifications.title, 'Order refunded')));
    expect(told).toHaveLength(1);
    // Once refunded, it is not refunded again.
    expect(await ctx.services.analysis.expireUnaccepted(silent)).toBe(0);
  }, 60_000);
});
