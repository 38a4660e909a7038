import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  auditEvents,
  instances,
  notifications,
  orders,
  payments,
  series,
  users,
} from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { dcm, makeDicom, newPatient, readZip, uid, type Patient } from '../../helpers/studies';
import { offeringProfessional } from '../../helpers/directory';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let patient: Patient;
let stranger: Patient;
let pro: Patient;
let otherPro: Patient;
let ctStudy: string;
let ctStudyUid: string;
let mrStudy: string;
let expertReview: { id: string; providers: Array<{ id: string; price: number }> };
let providerId: string;

const db = () => ctx.services.database.db;
const call = (p: Patient | undefined, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  ctx.app.inject({
    method,
    url,
    headers: p?.auth ?? {},
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
  });

async function newStudy(ownerId: string, modality: string, studyUid = uid()): Promise<string> {
  const seriesUid = uid();
  const files = [1, 2].map((n) =>
    makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: n, modality }),
  );
  const [id] = await ingestFiles(ctx, ownerId, files);
  return id!;
}

/** Buys Expert Review from the linked provider with the sandbox's succeeding card. */
async function buy(p: Patient, studyId: string): Promise<{ id: string; orderStatus: string }> {
  const intent = await call(p, 'POST', '/api/payments/create-payment-intent', {
    serviceId: expertReview.id,
    providerId,
    studyId,
  });
  expect(intent.statusCode, intent.body).toBe(200);
  const paid = await call(p, 'POST', '/api/payments/sandbox/confirm', {
    clientSecret: intent.json().clientSecret,
    card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
  });
  expect(paid.statusCode, paid.body).toBe(200);
  return paid.json().purchase;
}

const report = {
  findings: 'No acute <b>findings</b> & nothing else.',
  impression: 'Normal study.',
  recommendation: '',
};

beforeAll(async () => {
  ctx = await createTestContext();
  patient = await newPatient(ctx, 'patient-fulfil@example.com');
  stranger = await newPatient(ctx, 'stranger-fulfil@example.com');
  const reader = await offeringProfessional(ctx, 'pro-fulfil@example.com');
  pro = reader;
  otherPro = await offeringProfessional(ctx, 'other-pro-fulfil@example.com');
  ctStudyUid = uid();
  ctStudy = await newStudy(patient.id, 'CT', ctStudyUid);
  mrStudy = await newStudy(patient.id, 'MR');
  const catalogue = (await call(patient, 'GET', '/api/services')).json() as Array<{
    id: string;
    name: string;
    providers: Array<{ id: string; price: number }>;
  }>;
  expertReview = catalogue.find((s) => s.name === 'Expert Review')!;
  providerId = reader.providerId;
}, 60_000);
afterAll(async () => ctx?.close());

describe('an Expert Review order, from acceptance to the delivered report', () => {
  let orderId: string;

  it('reaches the linked professional, and only them', async () => {
    const order = await buy(patient, ctStudy);
    orderId = order.id;
    expect(order.orderStatus).toBe('pending_approval');
    const mine = await call(pro, 'GET', '/api/professional/orders');
    expect(mine.statusCode, mine.body).toBe(200);
    const listed = (mine.json() as Array<{ id: string; studyId: string | null; study: unknown }>).find(
      (o) => o.id === orderId,
    );
    expect(listed).toMatchObject({ orderStatus: 'pending_approval', studyId: null });
    expect(JSON.stringify(listed)).not.toMatch(/Phantom|Doe/);
    expect((await call(otherPro, 'GET', '/api/professional/orders')).json()).toEqual([]);
    for (const who of [otherPro, stranger, patient]) {
      expect((await call(who, 'GET', `/api/professional/orders/${orderId}`)).statusCode).toBe(404);
      expect((await call(who, 'POST', `/api/professional/orders/${orderId}/accept`)).statusCode).toBe(404);
    }
    expect((await call(patient, 'GET', '/api/professional/orders')).statusCode).toBe(404);
    // Before accepting, the professional cannot read the study.
    expect((await call(pro, 'GET', `/api/studies/study/${ctStudy}`)).statusCode).toBe(404);
  });

  it('accepting opens the study to the professional, read only', async () => {
    const res = await call(pro, 'POST', `/api/professional/orders/${orderId}/accept`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ orderStatus: 'in_progress', studyId: ctStudy });
    expect((await call(pro, 'POST', `/api/professional/orders/${orderId}/accept`)).statusCode).toBe(409);
    expect((await call(pro, 'GET', `/api/studies/study/${ctStudy}`)).statusCode).toBe(200);
    expect((await call(pro, 'GET', `/api/studies/download/${ctStudy}`)).statusCode).toBe(404);
    expect((await call(otherPro, 'GET', `/api/studies/study/${ctStudy}`)).statusCode).toBe(404);
    const told = await db().select().from(notifications).where(eq(notifications.userId, patient.id));
    expect(told.map((n) => n.title)).toContain('Order accepted');
  });

  it('saves a draft and refuses delivery without findings', async () => {
    const saved = await call(pro, 'PUT', `/api/professional/orders/${orderId}/report`, {
      ...report,
      impression: '',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().draft.findings).toBe(report.findings);
    const empty = await call(pro, 'POST', `/api/professional/orders/${orderId}/deliver`, {
      findings: '',
      impression: 'x',
      recommendation: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(
      (await call(otherPro, 'POST', `/api/professional/orders/${orderId}/deliver`, report)).statusCode,
    ).toBe(404);
  });

  it('delivering adds a DICOM Encapsulated PDF series and completes the order', async () => {
    const usedBefore = (await db().select().from(users).where(eq(users.id, patient.id)))[0]!.usedStorageBytes;
    const res = await call(pro, 'POST', `/api/professional/orders/${orderId}/deliver`, report);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ orderStatus: 'completed', studyId: null });
    expect(res.json().completedAt).toBeTruthy();

    const [doc] = await db()
      .select({ instance: instances, series })
      .from(instances)
      .innerJoin(series, eq(series.id, instances.seriesId))
      .where(and(eq(instances.studyId, ctStudy), eq(series.modality, 'DOC')));
    expect(doc!.instance.sopClassUid).toBe('1.2.840.10008.5.1.4.1.1.104.1');
    const usedAfter = (await db().select().from(users).where(eq(users.id, patient.id)))[0]!.usedStorageBytes;
    expect(usedAfter - usedBefore).toBe(doc!.instance.sizeBytes);

    // Listed with the study's series (DICOMweb), and the Info dialog's counts.
    const qido = await ctx.app.inject({
      method: 'GET',
      url: `/dicomweb/studies/${ctStudyUid}/series`,
      headers: patient.auth,
    });
    expect(qido.statusCode, qido.body).toBe(200);
    const modalities = (qido.json() as Array<Record<string, { Value?: string[] }>>).map(
      (s) => s['00080060']?.Value?.[0],
    );
    expect(modalities).toEqual(expect.arrayContaining(['CT', 'DOC']));
    const info = (await call(patient, 'GET', `/api/studies/study/${ctStudy}`)).json();
    expect(JSON.stringify(info)).toMatch(/"seriesCount":2|"numberOfSeries":2|"series":2/);

    // In the download, as a file that parses as the PDF instance of this study.
    const zip = await call(patient, 'GET', `/api/studies/download/${ctStudy}`);
    expect(zip.statusCode).toBe(200);
    const files = await readZip(zip.rawPayload);
    expect(files.size).toBe(3);
    const parsed = [...files.values()]
      .map((b) => dcm.data.DicomMessage.readFile(new Uint8Array(b).buffer))
      .map((d) => dcm.data.DicomMetaDictionary.naturalizeDataset(d.dict))
      .find((d) => d.Modality === 'DOC')!;
    expect(parsed).toMatchObject({
      SOPClassUID: '1.2.840.10008.5.1.4.1.1.104.1',
      StudyInstanceUID: ctStudyUid,
      MIMETypeOfEncapsulatedDocument: 'application/pdf',
    });
    expect(parsed.SeriesInstanceUID).toMatch(/^2\.25\./);
    const pdf = Buffer.from((parsed.EncapsulatedDocument as ArrayBuffer[])[0]!);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    // The patient opens the report; a stranger cannot.
    const opened = await call(patient, 'GET', `/api/orders/${orderId}/report`);
    expect(opened.statusCode).toBe(200);
    expect(opened.headers['content-type']).toBe('application/pdf');
    expect(opened.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await call(stranger, 'GET', `/api/orders/${orderId}/report`)).statusCode).toBe(404);

    // Latest Completion in the studies list; the patient is told, without patient data.
    const list = await call(patient, 'GET', `/api/studies/user/${patient.id}`);
    const item = (list.json().data as Array<{ id: string; latestCompletionDate: string | null }>).find(
      (s) => s.id === ctStudy,
    );
    expect(item?.latestCompletionDate).toBeTruthy();
    const told = await db().select().from(notifications).where(eq(notifications.userId, patient.id));
    expect(told.map((n) => n.title)).toContain('Analysis completed');
    const audited = await db()
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'order.report_delivered'));
    expect(audited.map((a) => a.targetId)).toContain(orderId);
  });

  it('ends the professional’s access with the order, and a second delivery changes nothing', async () => {
    expect((await call(pro, 'GET', `/api/studies/study/${ctStudy}`)).statusCode).toBe(404);
    expect((await call(pro, 'POST', `/api/professional/orders/${orderId}/deliver`, report)).statusCode).toBe(
      409,
    );
    await expect(
      ctx.services.reportDelivery.deliverReport(orderId, { title: 'x', automated: true, sections: [] }),
    ).rejects.toThrow();
  });
});

describe('declining', () => {
  it('refunds in full, notifies the patient and opens nothing', async () => {
    const order = await buy(patient, ctStudy);
    const res = await call(pro, 'POST', `/api/professional/orders/${order.id}/decline`, { reason: 'Busy' });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await db().select().from(orders).where(eq(orders.id, order.id));
    expect(row!.status).toBe('refunded');
    const [payment] = await db().select().from(payments).where(eq(payments.id, row!.paymentId!));
    expect(payment!.refundedCents).toBe(payment!.amountCents);
    const told = await db().select().from(notifications).where(eq(notifications.userId, patient.id));
    expect(told.map((n) => n.title)).toContain('Order declined');
    expect((await call(pro, 'POST', `/api/professional/orders/${order.id}/accept`)).statusCode).toBe(409);
    expect((await call(pro, 'GET', `/api/studies/study/${ctStudy}`)).statusCode).toBe(404);
  });
});

describe('an order waiting for data', () => {
  it('says what it needs and takes another of the patient’s studies', async () => {
    const order = await buy(patient, mrStudy);
    expect(order.orderStatus).toBe('pending_data_upload');
    const need = await call(patient, 'GET', `/api/orders/${order.id}/data-need`);
    expect(need.statusCode).toBe(200);
    expect(need.json().reason).toMatch(/X-Ray, CT/);
    expect((await call(stranger, 'GET', `/api/orders/${order.id}/data-need`)).statusCode).toBe(404);
    const strangersStudy = await newStudy(stranger.id, 'CT');
    expect(
      (await call(patient, 'POST', `/api/orders/${order.id}/study`, { studyId: strangersStudy })).statusCode,
    ).toBe(404);
    expect(
      (await call(stranger, 'POST', `/api/orders/${order.id}/study`, { studyId: strangersStudy })).statusCode,
    ).toBe(404);
    expect(
      (await call(patient, 'POST', `/api/orders/${order.id}/study`, { studyId: mrStudy })).statusCode,
    ).toBe(422);
    const another = await newStudy(patient.id, 'CT');
    const ok = await call(patient, 'POST', `/api/orders/${order.id}/study`, { studyId: another });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ orderStatus: 'pending_approval', studyId: another });
  });
});
