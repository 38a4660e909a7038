import { readFile } from 'node:fs/promises';
import path from 'node:path';
import dicomParser from 'dicom-parser';
import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  analysisRuns,
  auditEvents,
  instances,
  notifications,
  orderFulfilments,
  orders,
} from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { generateSeries } from '../../helpers/dicom-series';
import { FIXTURES, makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { offeringProfessional } from '../../helpers/directory';
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
async function buy(p: Patient, serviceName: string, studyId: string, providerId?: string): Promise<string> {
  const catalogue = (await call(p, 'GET', '/api/services')).json() as ServiceDto[];
  const s = catalogue.find((x) => x.name === serviceName)!;
  const intent = await call(p, 'POST', '/api/payments/create-payment-intent', {
    serviceId: s.id,
    providerId: providerId ?? s.providers[0]!.id,
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

/** The order's analysis run record, if it has one. */
const runOf = async (orderId: string) =>
  (await db().select().from(analysisRuns).where(eq(analysisRuns.orderId, orderId)))[0];

/** A generated CT series of `count` slices 2 mm apart, without the slices at `missing`. */
function ctSeries(count: number, missing: number[] = []) {
  const s = generateSeries({ count, size: 64 });
  return s.files.filter((_, i) => !missing.includes(i)).map((f) => f.bytes);
}

beforeAll(async () => {
  ctx = await createTestContext();
  buyer = await newPatient(ctx, 'buyer-analysis@example.com');
  await offeringProfessional(ctx, 'reader-analysis@example.com', { services: ['Expert Review'] });
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
      const row = await runOf(orderId);
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
    const run = await runOf(orderId);
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
    // The sweep (every 2 minutes) may run beside these calls: whichever refunds it, it is refunded
    // once and the patient told once.
    const counts = await Promise.all([
      ctx.services.analysis.expireUnaccepted(silent),
      ctx.services.analysis.expireUnaccepted(silent),
    ]);
    expect(counts[0]! + counts[1]!).toBeLessThanOrEqual(1);
    expect(await orderStatus(orderId)).toBe('refunded');
    const audited = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'analysis.refund'), eq(auditEvents.targetId, orderId)));
    expect(audited).toHaveLength(1);
    const told = await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, buyer.id), eq(notifications.title, 'Order refunded')));
    expect(told).toHaveLength(1);
    // Once refunded, it is not refunded again.
    expect(await ctx.services.analysis.expireUnaccepted(silent)).toBe(0);
  }, 60_000);
});

describe('Complete Analysis Package: its automated part', () => {
  const PACKAGE = 'Complete Analysis Package';
  let pro: Patient;
  let packageProviderId: string;

  /** An MR study of `n` small images (the package reads X-Ray and MRI). */
  async function mrStudy(owner: string, n = 3): Promise<string> {
    const studyUid = uid();
    const seriesUid = uid();
    const files = Array.from({ length: n }, (_, i) =>
      makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: i + 1, modality: 'MR' }),
    );
    return (await ingestFiles(ctx, owner, files))[0]!;
  }
  const reportSeries = async (studyId: string) =>
    (await db().select().from(instances).where(eq(instances.studyId, studyId))).filter(
      (i) => i.sopClassUid === '1.2.840.10008.5.1.4.1.1.104.1',
    );
  const fulfilmentOf = async (orderId: string) =>
    (await db().select().from(orderFulfilments).where(eq(orderFulfilments.orderId, orderId)))[0];

  beforeAll(async () => {
    const reader = await offeringProfessional(ctx, 'pro-analysis@example.com', { services: [PACKAGE] });
    pro = reader;
    packageProviderId = reader.providerId;
  }, 60_000);

  it('adds the automated report to the study without completing the order; the professional completes it', async () => {
    const studyId = await mrStudy(buyer.id);
    const orderId = await buy(buyer, PACKAGE, studyId, packageProviderId);
    expect(await orderStatus(orderId)).toBe('pending_approval');
    // The job adds the automated part as a series of its own; the order waits for the professional.
    await eventually(async () => (await fulfilmentOf(orderId))?.automatedReportAt, 60_000);
    expect(await orderStatus(orderId)).toBe('pending_approval');
    expect(await reportSeries(studyId)).toHaveLength(1);
    const run = await eventually(async () => {
      const row = await runOf(orderId);
      return row?.status === 'delivered' ? row : undefined;
    });
    expect(run.attempts).toBe(1);
    const told = await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, buyer.id), eq(notifications.title, 'Automated analysis ready')));
    expect(told).toHaveLength(1);
    expect(told[0]!.description).toContain("The professional's reading follows");
    // Purchased Services offers it before the order completes; only the buyer opens it.
    const listed = (await call(buyer, 'GET', `/api/purchases/user/${buyer.id}`))
      .json()
      .find((x: { id: string }) => x.id === orderId);
    expect(listed.automatedReportAt).toEqual(expect.any(String));
    const automatedPdf = await call(buyer, 'GET', `/api/orders/${orderId}/report?part=automated`);
    expect(automatedPdf.statusCode).toBe(200);
    expect(automatedPdf.headers['content-type']).toBe('application/pdf');
    expect(automatedPdf.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect((await call(buyer, 'GET', `/api/orders/${orderId}/report`)).statusCode).toBe(404);
    const other = await newPatient(ctx, 'other-analysis@example.com');
    expect((await call(other, 'GET', `/api/orders/${orderId}/report?part=automated`)).statusCode).toBe(404);
    // Only once: a second run does nothing.
    expect(await ctx.services.analysis.runOrder(orderId, silent)).toBe('skipped');
    await expect(
      ctx.services.reportDelivery.deliverReport(
        orderId,
        { title: 'again', automated: true, sections: [] },
        { mode: 'automated_part' },
      ),
    ).rejects.toThrow(/already delivered/);

    // The professional accepts, sees the series in the study they open, and delivers.
    expect((await call(pro, 'POST', `/api/professional/orders/${orderId}/accept`)).statusCode).toBe(200);
    const opened = await call(pro, 'GET', `/api/studies/study/${studyId}`);
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.json().data.metadata.modalities).toContain('DOC');
    const delivered = await call(pro, 'POST', `/api/professional/orders/${orderId}/deliver`, {
      findings: 'Findings.',
      impression: 'Impression.',
      recommendation: '',
    });
    expect(delivered.statusCode, delivered.body).toBe(200);
    expect(await orderStatus(orderId)).toBe('completed');
    expect(await reportSeries(studyId)).toHaveLength(2);
  }, 90_000);

  it('runs when a study is attached to a package waiting for data', async () => {
    const [ctStudy] = await ingestFiles(ctx, buyer.id, ctSeries(3));
    const orderId = await buy(buyer, PACKAGE, ctStudy!, packageProviderId);
    // A CT study: the package reads X-Ray and MRI, so it waits for data and nothing runs.
    expect(await orderStatus(orderId)).toBe('pending_data_upload');
    expect(await ctx.services.analysis.runOrder(orderId, silent)).toBe('skipped');
    const studyId = await mrStudy(buyer.id);
    const attached = await call(buyer, 'POST', `/api/orders/${orderId}/study`, { studyId });
    expect(attached.statusCode, attached.body).toBe(200);
    expect(attached.json().orderStatus).toBe('pending_approval');
    await eventually(async () => (await fulfilmentOf(orderId))?.automatedReportAt, 60_000);
    expect(await reportSeries(studyId)).toHaveLength(1);
    expect(await reportSeries(ctStudy!)).toHaveLength(0);
    expect(await orderStatus(orderId)).toBe('pending_approval');
  }, 90_000);

  it('a package refunded before its automated part ran never runs it', async () => {
    const [ctStudy] = await ingestFiles(ctx, buyer.id, ctSeries(3));
    const orderId = await buy(buyer, PACKAGE, ctStudy!, packageProviderId);
    expect(await orderStatus(orderId)).toBe('pending_data_upload');
    // As if its job had been queued (a lost race): the refund comes first.
    await db().insert(analysisRuns).values({ orderId, status: 'queued' });
    await ctx.services.orders.refundOrder(orderId, 'test refund');
    expect(await ctx.services.analysis.runOrder(orderId, silent)).toBe('skipped');
    await ctx.services.analysis.queueAutomatedPart(orderId);
    expect(await ctx.services.analysis.queueMissed()).toBe(0);
    expect(await reportSeries(ctStudy!)).toHaveLength(0);
    expect((await fulfilmentOf(orderId))?.automatedReportAt ?? null).toBeNull();
  }, 60_000);

  it('a declined package never runs it', async () => {
    const studyId = await mrStudy(buyer.id);
    const orderId = await buy(buyer, PACKAGE, studyId, packageProviderId);
    // Decline at once; whichever of the job and the decline comes first, no part is added after.
    const declined = await call(pro, 'POST', `/api/professional/orders/${orderId}/decline`, {});
    expect(declined.statusCode, declined.body).toBe(200);
    expect(await orderStatus(orderId)).toBe('refunded');
    const before = (await reportSeries(studyId)).length;
    expect(await ctx.services.analysis.runOrder(orderId, silent)).toBe('skipped');
    expect(await reportSeries(studyId)).toHaveLength(before);
  }, 60_000);

  it('is queued by the sweep when its job was never sent', async () => {
    const studyId = await mrStudy(buyer.id);
    const orderId = await buy(buyer, PACKAGE, studyId, packageProviderId);
    // Wait for the job started at payment to end (its run recorded as delivered, which comes after the
    // report), then forget its record as if it had never been sent.
    await eventually(
      async () =>
        (await runOf(orderId))?.status === 'delivered' && (await fulfilmentOf(orderId))?.automatedReportAt,
      60_000,
    );
    await db()
      .update(orderFulfilments)
      .set({ automatedReportAt: null })
      .where(eq(orderFulfilments.orderId, orderId));
    await db().delete(analysisRuns).where(eq(analysisRuns.orderId, orderId));
    expect(await ctx.services.analysis.queueMissed()).toBe(1);
    expect(await ctx.services.analysis.queueMissed()).toBe(0);
    await eventually(async () => (await fulfilmentOf(orderId))?.automatedReportAt, 60_000);
    expect(await reportSeries(studyId)).toHaveLength(2);
  }, 90_000);
});
