import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import type {
  Bundle,
  CapabilityStatement,
  DiagnosticReport,
  DocumentReference,
  Endpoint,
  ImagingStudy,
  OperationOutcome,
  Patient,
  Resource,
} from '@medplum/fhirtypes';
import { Client } from 'fhir-kit-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, orderFulfilments, users } from '../../../src/db/schema/index';
import type { Principal } from '../../../src/modules/access';
import { reportPdfKey } from '../../../src/modules/fulfilment/report-delivery';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { offeringProfessional } from '../../helpers/directory';
import { makeDicom, newPatient, uid, type Patient as TestUser } from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';
import { fhirErrors, loadFhirDefinitions } from './fhir-validator';

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
let pro: TestUser;
let ctStudy: string;
let ctUid: string;
let mrStudy: string;
let orderId: string;
let baseUrl: string;
let providerId: string;

const db = () => ctx.services.database.db;
const meta = { requestId: 'fhir-test', ip: '127.0.0.1' };
const principalOf = (u: TestUser): Principal => ({
  userId: u.id,
  role: 'patient',
  via: 'session',
  studyId: null,
});

function get(who: TestUser | undefined, url: string, headers: Record<string, string> = {}) {
  return ctx.app.inject({
    method: 'GET',
    url: `/fhir/R4/${url}`,
    headers: { ...(who?.auth ?? {}), ...headers },
  });
}

/** A FHIR answer: its status, that it is FHIR JSON, and that the resource validates. */
async function fhirGet<T extends Resource>(who: TestUser | undefined, url: string, status = 200): Promise<T> {
  const res = await get(who, url);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
  const body = res.json() as T;
  expect(fhirErrors(body)).toEqual([]);
  return body;
}

async function expectOutcome(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
  const outcome = res.json() as OperationOutcome;
  expect(outcome.resourceType).toBe('OperationOutcome');
  expect(outcome.issue[0]).toMatchObject({ severity: 'error', code });
  expect(outcome.issue[0]!.diagnostics).toEqual(expect.any(String));
  expect(fhirErrors(outcome)).toEqual([]);
  return outcome;
}

/** The delivered report's PDF as report delivery stored it. */
async function storedPdf(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await ctx.services.storage.get(reportPdfKey(orderId))) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Buys a service of the test's professional for a study, with the sandbox's succeeding card; the order id. */
async function buy(who: TestUser, serviceName: string, studyId: string, providerId: string): Promise<string> {
  const call = (url: string, payload: object) =>
    ctx.app.inject({ method: 'POST', url, headers: who.auth, payload });
  const catalogue = (await ctx.app.inject({ url: '/api/services', headers: who.auth })).json() as Array<{
    id: string;
    name: string;
  }>;
  const intent = await call('/api/payments/create-payment-intent', {
    serviceId: catalogue.find((s) => s.name === serviceName)!.id,
    providerId,
    studyId,
  });
  expect(intent.statusCode, intent.body).toBe(200);
  const paid = await call('/api/payments/sandbox/confirm', {
    clientSecret: intent.json().clientSecret,
    card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
  });
  expect(paid.statusCode, paid.body).toBe(200);
  return paid.json().purchase.id as string;
}

const ids = (b: Bundle) => (b.entry ?? []).map((e) => e.resource!.id);

beforeAll(async () => {
  loadFhirDefinitions();
  ctx = await createTestContext();
  owner = await newPatient(ctx, 'fhir-owner@example.com');
  stranger = await newPatient(ctx, 'fhir-stranger@example.com');
  await db().update(users).set({ dateOfBirth: '1815-12-10' }).where(eq(users.id, owner.id));
  const reader = await offeringProfessional(ctx, 'fhir-pro@example.com');
  pro = reader;

  ctUid = uid();
  const ctSeries = [uid(), uid()];
  ctStudy = (
    await ingestFiles(ctx, owner.id, [
      ...[1, 2, 3].map((n) =>
        makeDicom({
          studyUid: ctUid,
          seriesUid: ctSeries[0]!,
          sopUid: uid(),
          instanceNumber: n,
          modality: 'CT',
          studyDate: '20240115',
          studyDescription: 'CT chest',
        }),
      ),
      makeDicom({
        studyUid: ctUid,
        seriesUid: ctSeries[1]!,
        sopUid: uid(),
        modality: 'CT',
        studyDate: '20240115',
      }),
    ])
  )[0]!;
  const mrUid = uid();
  mrStudy = (
    await ingestFiles(ctx, owner.id, [
      makeDicom({ studyUid: mrUid, seriesUid: uid(), sopUid: uid(), modality: 'MR', studyDate: '20230301' }),
    ])
  )[0]!;

  // A delivered report on the CT study: bought, accepted and delivered as in fulfilment.test.ts.
  const call = (who: TestUser, method: 'GET' | 'POST', url: string, payload?: object) =>
    ctx.app.inject({ method, url, headers: who.auth, ...(payload ? { payload } : {}) });
  providerId = reader.providerId;
  orderId = await buy(owner, 'Expert Review', ctStudy, providerId);
  expect((await call(pro, 'POST', `/api/professional/orders/${orderId}/accept`)).statusCode).toBe(200);
  const delivered = await call(pro, 'POST', `/api/professional/orders/${orderId}/deliver`, {
    findings: 'No acute findings.',
    impression: 'Normal study.',
    recommendation: '',
  });
  expect(delivered.statusCode, delivered.body).toBe(200);

  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/fhir/R4`;
}, 120_000);
afterAll(async () => ctx?.close());

describe('GET /fhir/R4/metadata', () => {
  it('is a valid R4 CapabilityStatement, open to anyone', async () => {
    const cs = await fhirGet<CapabilityStatement>(undefined, 'metadata');
    expect(cs.fhirVersion).toBe('4.0.1');
    expect(cs.format).toContain('application/fhir+json');
    const types = cs.rest![0]!.resource!.map((r) => r.type);
    expect(types).toEqual(['Patient', 'ImagingStudy', 'DiagnosticReport', 'DocumentReference', 'Endpoint']);
    const imaging = cs.rest![0]!.resource!.find((r) => r.type === 'ImagingStudy')!;
    expect(imaging.searchParam!.map((p) => p.name)).toEqual(
      expect.arrayContaining(['patient', 'identifier', 'started', 'modality']),
    );
  });
});

describe('reads', () => {
  it('the owner reads their Patient, studies and the DICOMweb Endpoint', async () => {
    const patient = await fhirGet<Patient>(owner, `Patient/${owner.id}`);
    expect(patient).toMatchObject({
      id: owner.id,
      name: [{ text: 'Ada Lovelace' }],
      birthDate: '1815-12-10',
    });

    const study = await fhirGet<ImagingStudy>(owner, `ImagingStudy/${ctStudy}`);
    expect(study).toMatchObject({
      id: ctStudy,
      status: 'available',
      identifier: [{ system: 'urn:dicom:uid', value: `urn:oid:${ctUid}` }],
      subject: { reference: `Patient/${owner.id}` },
      started: '2024-01-15',
      description: 'CT chest',
      endpoint: [{ reference: 'Endpoint/dicomweb' }],
    });
    expect(study.modality!.map((m) => m.code)).toEqual(expect.arrayContaining(['CT', 'DOC']));
    expect(study.modality![0]!.system).toBe('http://dicom.nema.org/resources/ontology/DCM');
    // Two CT series and the delivered report's series.
    expect(study.numberOfSeries).toBe(3);
    expect(study.numberOfInstances).toBe(5);
    expect(study.series!.map((s) => s.numberOfInstances).sort()).toEqual([1, 1, 3]);
    expect(study.series!.every((s) => !('instance' in s))).toBe(true);

    const endpoint = await fhirGet<Endpoint>(owner, 'Endpoint/dicomweb');
    expect(endpoint).toMatchObject({
      connectionType: {
        system: 'http://terminology.hl7.org/CodeSystem/endpoint-connection-type',
        code: 'dicom-wado-rs',
      },
      address: `${ctx.services.config.publicUrl}/dicomweb`,
    });
    expect(endpoint.header).toBeUndefined();
  });

  it('a delivered report is a DiagnosticReport, and its PDF a DocumentReference holding the stored bytes', async () => {
    const report = await fhirGet<DiagnosticReport>(owner, `DiagnosticReport/${orderId}`);
    expect(report).toMatchObject({
      id: orderId,
      status: 'final',
      category: [{ coding: [{ code: 'RAD' }] }],
      code: { coding: [{ system: 'http://loinc.org', code: '18748-4' }] },
      subject: { reference: `Patient/${owner.id}` },
      imagingStudy: [{ reference: `ImagingStudy/${ctStudy}` }],
      conclusion: 'Normal study.',
    });
    expect(report.performer![0]!.display).toEqual(expect.any(String));
    expect(Date.parse(report.issued!)).not.toBeNaN();

    const doc = await fhirGet<DocumentReference>(owner, `DocumentReference/${orderId}`);
    expect(doc).toMatchObject({
      status: 'current',
      type: { coding: [{ system: 'http://loinc.org', code: '18748-4' }] },
      subject: { reference: `Patient/${owner.id}` },
      context: {
        related: [{ reference: `DiagnosticReport/${orderId}` }, { reference: `ImagingStudy/${ctStudy}` }],
      },
    });
    const attachment = doc.content[0]!.attachment;
    expect(attachment.contentType).toBe('application/pdf');
    const pdf = Buffer.from(attachment.data!, 'base64');
    const stored = await storedPdf();
    expect(pdf.equals(stored)).toBe(true);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const served = await ctx.app.inject({ url: `/api/orders/${orderId}/report`, headers: owner.auth });
    expect(pdf.equals(served.rawPayload)).toBe(true);
    expect(attachment.size).toBe(pdf.length);
  });

  it('a stranger, a malformed id and an unknown id all get the one 404 OperationOutcome; reads are audited', async () => {
    for (const url of [
      `ImagingStudy/${ctStudy}`,
      `Patient/${owner.id}`,
      `DiagnosticReport/${orderId}`,
      `DocumentReference/${orderId}`,
      `DiagnosticReport/${orderId}-automated`,
    ])
      await expectOutcome(await get(stranger, url), 404, 'not-found');
    for (const url of [
      'ImagingStudy/not-a-uuid',
      'ImagingStudy/00000000-0000-0000-0000-000000000000',
      `Patient/${'x'.repeat(80)}`,
      'DiagnosticReport/..',
      'Endpoint/other',
      'Observation/1',
      'ImagingStudy/1/_history',
    ])
      await expectOutcome(await get(owner, url), 404, 'not-found');

    const denied = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, stranger.id), eq(auditEvents.action, 'fhir.read')));
    expect(denied.map((a) => a.outcome)).toEqual(Array(5).fill('denied'));
    const read = await db()
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.actorId, owner.id),
          eq(auditEvents.action, 'fhir.read'),
          eq(auditEvents.targetId, ctStudy),
        ),
      );
    expect(read.filter((a) => a.outcome === 'success').length).toBeGreaterThanOrEqual(3);
    expect(read[0]!.details).toMatchObject({ via: 'session', resource: `ImagingStudy/${ctStudy}` });
  });

  it('asks for a credential: 401 OperationOutcome with WWW-Authenticate', async () => {
    const res = await get(undefined, `ImagingStudy/${ctStudy}`);
    await expectOutcome(res, 401, 'login');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    await expectOutcome(await get(undefined, 'ImagingStudy', { authorization: 'Bearer nope' }), 401, 'login');
  });

  it('refuses writes with 405 and answers only JSON', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      for (const url of [
        '/fhir/R4/ImagingStudy',
        `/fhir/R4/ImagingStudy/${ctStudy}`,
        '/fhir/R4',
        '/fhir/R4/',
      ]) {
        const res = await ctx.app.inject({
          method,
          url,
          headers: { ...owner.auth, 'content-type': 'application/fhir+json' },
          payload: JSON.stringify({ resourceType: 'ImagingStudy', status: 'available' }),
        });
        await expectOutcome(res, 405, 'not-supported');
        expect(res.headers.allow).toBe('GET, HEAD');
      }
    }
    // Even a body the server could not parse, and without a credential.
    await expectOutcome(
      await ctx.app.inject({
        method: 'POST',
        url: '/fhir/R4/Patient',
        headers: { 'content-type': 'application/xml' },
        payload: '<Patient/>',
      }),
      405,
      'not-supported',
    );
    await expectOutcome(await get(owner, 'metadata?_format=xml'), 406, 'not-supported');
    await expectOutcome(
      await get(owner, 'metadata', { accept: 'application/fhir+xml' }),
      406,
      'not-supported',
    );
    expect((await get(owner, 'metadata', { accept: 'application/fhir+json' })).statusCode).toBe(200);
  });
});

describe('search', () => {
  const search = (who: TestUser, q: string) => fhirGet<Bundle>(who, q);

  it('ImagingStudy by patient, identifier, started (with prefixes) and modality', async () => {
    const all = await search(owner, `ImagingStudy?patient=Patient/${owner.id}`);
    expect(all).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total: 2 });
    expect(ids(all).sort()).toEqual([ctStudy, mrStudy].sort());
    expect(all.link).toEqual([
      {
        relation: 'self',
        url: `${ctx.services.fhir.base}/ImagingStudy?patient=Patient%2F${owner.id}&_count=100`,
      },
    ]);
    expect(
      all.entry!.every(
        (e) => e.search?.mode === 'match' && e.fullUrl!.endsWith(`/ImagingStudy/${e.resource!.id}`),
      ),
    ).toBe(true);

    const q = async (query: string) => ids(await search(owner, `ImagingStudy?${query}`));
    expect(await q(`subject=${owner.id}`)).toHaveLength(2);
    expect(await q(`identifier=urn:dicom:uid|urn:oid:${ctUid}`)).toEqual([ctStudy]);
    expect(await q(`identifier=urn:oid:${ctUid}`)).toEqual([ctStudy]);
    expect(await q(`identifier=other|urn:oid:${ctUid}`)).toEqual([]);
    expect(await q('started=2024-01-15')).toEqual([ctStudy]);
    expect(await q('started=2024')).toEqual([ctStudy]);
    expect(await q('started=ge2024-01-01')).toEqual([ctStudy]);
    expect(await q('started=lt2024-01-01')).toEqual([mrStudy]);
    expect(await q('started=ne2024-01-15')).toEqual([mrStudy]);
    expect((await q('started=gt2023-01-01&started=lt2025')).sort()).toEqual([ctStudy, mrStudy].sort());
    expect(await q('started=sa2023-12-31')).toEqual([ctStudy]);
    expect(await q('started=eb2023-03-02')).toEqual([mrStudy]);
    expect(await q('modality=MR')).toEqual([mrStudy]);
    expect(await q('modality=http://dicom.nema.org/resources/ontology/DCM|CT')).toEqual([ctStudy]);
    expect((await q('modality=MR,CT')).sort()).toEqual([ctStudy, mrStudy].sort());
    expect(await q('modality=MR&modality=CT')).toEqual([]);
    expect(await q(`_id=${mrStudy}`)).toEqual([mrStudy]);
    expect(await q(`patient=Patient/${stranger.id}`)).toEqual([]);

    // Unknown parameters are ignored (and left out of self) unless the client asks for strictness.
    const lenient = await search(owner, 'ImagingStudy?modality=MR&_sort=-started');
    expect(lenient.total).toBe(1);
    expect(lenient.link![0]!.url).not.toContain('_sort');
    await expectOutcome(
      await get(owner, 'ImagingStudy?_sort=-started', { prefer: 'handling=strict' }),
      400,
      'invalid',
    );
    await expectOutcome(await get(owner, 'ImagingStudy?started=ge-yesterday'), 400, 'invalid');
    await expectOutcome(await get(owner, 'ImagingStudy?patient:missing=true'), 400, 'invalid');
  });

  it('pages with _count and a next link', async () => {
    const first = await search(owner, 'ImagingStudy?_count=1');
    expect(first.total).toBe(2);
    expect(first.entry).toHaveLength(1);
    const next = first.link!.find((l) => l.relation === 'next')!.url;
    expect(next).toContain('_offset=1');
    const second = await search(owner, next.slice(next.indexOf('ImagingStudy')));
    expect(second.entry).toHaveLength(1);
    expect(second.link!.find((l) => l.relation === 'next')).toBeUndefined();
    expect(ids(second)).not.toEqual(ids(first));
    const none = await search(owner, 'ImagingStudy?_count=0');
    expect(none).toMatchObject({ total: 2 });
    expect(none.entry).toBeUndefined();
  });

  it('a stranger finds nothing of the owner', async () => {
    for (const q of [
      `ImagingStudy?patient=Patient/${owner.id}`,
      'ImagingStudy',
      'DiagnosticReport',
      `DocumentReference?patient=${owner.id}`,
      `Patient?_id=${owner.id}`,
    ])
      expect((await search(stranger, q)).total, q).toBe(0);
    expect(ids(await search(stranger, 'Patient'))).toEqual([stranger.id]);
  });

  it('DiagnosticReport and DocumentReference by patient, study and related', async () => {
    expect(ids(await search(owner, `DiagnosticReport?patient=Patient/${owner.id}`))).toEqual([orderId]);
    expect(ids(await search(owner, `DiagnosticReport?study=ImagingStudy/${ctStudy}`))).toEqual([orderId]);
    expect(ids(await search(owner, `DiagnosticReport?study=ImagingStudy/${mrStudy}`))).toEqual([]);
    const docs = await search(owner, `DocumentReference?related=DiagnosticReport/${orderId}`);
    expect(ids(docs)).toEqual([orderId]);
    expect((docs.entry![0]!.resource as DocumentReference).content[0]!.attachment.data).toEqual(
      expect.any(String),
    );
    expect(ids(await search(owner, `DocumentReference?related=ImagingStudy/${mrStudy}`))).toEqual([]);
    expect(ids(await search(owner, `DocumentReference?subject=Patient/${owner.id}`))).toEqual([orderId]);
    expect(ids(await search(owner, 'Endpoint'))).toEqual(['dicomweb']);
  });
});

describe('with fhir-kit-client against a listening server', () => {
  it('searches ImagingStudy by patient and reads what it finds', async () => {
    const client = new Client({ baseUrl, bearerToken: owner.token });
    // fhir-kit-client types its answers as its own loose FhirResource.
    const as = <T extends Resource>(r: unknown) => r as T;
    const capability = as<CapabilityStatement>(await client.capabilityStatement());
    expect(capability.fhirVersion).toBe('4.0.1');
    const found = as<Bundle>(
      await client.search({ resourceType: 'ImagingStudy', searchParams: { patient: `Patient/${owner.id}` } }),
    );
    expect(found.total).toBe(2);
    expect(fhirErrors(found)).toEqual([]);
    const study = as<ImagingStudy>(await client.read({ resourceType: 'ImagingStudy', id: ctStudy }));
    expect(study.identifier![0]!.value).toBe(`urn:oid:${ctUid}`);
    const subject = as<Patient>(await client.read({ resourceType: 'Patient', id: owner.id }));
    expect(subject.birthDate).toBe('1815-12-10');
    const doc = as<DocumentReference>(await client.read({ resourceType: 'DocumentReference', id: orderId }));
    expect(fhirErrors(doc)).toEqual([]);

    const outsider = new Client({ baseUrl, bearerToken: stranger.token });
    await expect(outsider.read({ resourceType: 'ImagingStudy', id: ctStudy })).rejects.toMatchObject({
      response: { status: 404 },
    });
    await expect(
      outsider.create({ resourceType: 'Patient', body: { resourceType: 'Patient' } }),
    ).rejects.toMatchObject({
      response: { status: 405 },
    });
  });
});

describe('studyBundle (what a study link carries)', () => {
  it('holds the Patient, an ImagingStudy per study, both Endpoints, and the report with its PDF; all valid', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const bundle = await ctx.services.fhir.studyBundle(
      principalOf(owner),
      {
        studyIds: [ctStudy, mrStudy],
        endpoint: { header: ['Authorization: Bearer link-credential'], expiresAt },
        interactiveUrl: `${ctx.services.config.publicUrl}/shl#shlink:/abc`,
      },
      meta,
    );
    expect(fhirErrors(bundle)).toEqual([]);
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'collection' });
    expect(Date.parse(bundle.timestamp!)).not.toBeNaN();
    const entries = bundle.entry!;
    expect(new Set(entries.map((e) => e.fullUrl)).size).toBe(entries.length);
    for (const e of entries)
      expect(e.fullUrl).toBe(`${ctx.services.fhir.base}/${e.resource!.resourceType}/${e.resource!.id}`);
    const of = <T extends Resource>(type: T['resourceType']) =>
      entries.map((e) => e.resource!).filter((r): r is T => r.resourceType === type);
    expect(of<Patient>('Patient').map((p) => p.id)).toEqual([owner.id]);
    expect(of<ImagingStudy>('ImagingStudy').map((s) => s.id)).toEqual([ctStudy, mrStudy]);
    const endpoints = of<Endpoint>('Endpoint');
    expect(endpoints.map((e) => e.connectionType.code)).toEqual([
      'dicom-wado-rs',
      'shl-interactive-experience',
    ]);
    expect(endpoints[0]).toMatchObject({
      header: ['Authorization: Bearer link-credential'],
      period: { end: expiresAt.toISOString() },
      address: `${ctx.services.config.publicUrl}/dicomweb`,
    });
    expect(endpoints[1]!.address).toBe(`${ctx.services.config.publicUrl}/shl#shlink:/abc`);
    expect(of<DiagnosticReport>('DiagnosticReport').map((r) => r.id)).toEqual([orderId]);
    const [doc] = of<DocumentReference>('DocumentReference');
    const pdf = await storedPdf();
    expect(Buffer.from(doc!.content[0]!.attachment.data!, 'base64').equals(pdf)).toBe(true);

    const audited = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, owner.id), eq(auditEvents.action, 'fhir.bundle')));
    expect(audited.map((a) => a.targetId).sort()).toEqual([ctStudy, mrStudy].sort());
  });

  it('refuses a study the principal may not read with the one 404', async () => {
    await expect(
      ctx.services.fhir.studyBundle(principalOf(stranger), { studyIds: [ctStudy], endpoint: {} }, meta),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      ctx.services.fhir.studyBundle(principalOf(owner), { studyIds: [ctStudy, 'nope'], endpoint: {} }, meta),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // A link's recipient carries the owner's id but is not the owner: an unknown link's credential
    // reads nothing, the owner's Patient included, and is audited as the link, not as the owner.
    const link: Principal = {
      userId: owner.id,
      role: null,
      via: 'link',
      studyId: null,
      link: {
        linkId: '00000000-0000-4000-8000-000000000001',
        credentialId: '00000000-0000-4000-8000-000000000002',
        recipient: 'Dr. Who',
        allowDownload: false,
      },
    };
    await expect(
      ctx.services.fhir.studyBundle(link, { studyIds: [ctStudy], endpoint: {} }, meta),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(ctx.services.fhir.read(link, 'Patient', owner.id, meta)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const linkAudits = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorRole, 'link'), eq(auditEvents.targetId, owner.id)));
    expect(linkAudits).toHaveLength(1);
    expect(linkAudits[0]).toMatchObject({ actorId: null, action: 'fhir.read', outcome: 'denied' });
    expect(linkAudits[0]!.details).toMatchObject({ via: 'link', recipient: 'Dr. Who' });
    const bare = await ctx.services.fhir.studyBundle(
      principalOf(owner),
      { studyIds: [mrStudy], endpoint: {} },
      meta,
    );
    expect(fhirErrors(bare)).toEqual([]);
    expect(bare.entry!.map((e) => e.resource!.resourceType)).toEqual(['Patient', 'ImagingStudy', 'Endpoint']);
  });
});

describe('a Complete Analysis Package', () => {
  it('its automated part, once delivered, is a report of its own (<order>-automated) before the final one', async () => {
    const buyer = await newPatient(ctx, 'fhir-package@example.com');
    const studyUid = uid();
    const seriesUid = uid();
    const [studyId] = await ingestFiles(
      ctx,
      buyer.id,
      [1, 2, 3].map((n) =>
        makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: n, modality: 'MR' }),
      ),
    );
    const order = await buy(buyer, 'Complete Analysis Package', studyId!, providerId);
    await eventually(async () => {
      const [f] = await db().select().from(orderFulfilments).where(eq(orderFulfilments.orderId, order));
      return f?.automatedReportAt;
    }, 60_000);
    const report = await fhirGet<DiagnosticReport>(buyer, `DiagnosticReport/${order}-automated`);
    expect(report).toMatchObject({
      status: 'final',
      imagingStudy: [{ reference: `ImagingStudy/${studyId}` }],
    });
    const doc = await fhirGet<DocumentReference>(buyer, `DocumentReference/${order}-automated`);
    expect(Buffer.from(doc.content[0]!.attachment.data!, 'base64').subarray(0, 5).toString('latin1')).toBe(
      '%PDF-',
    );
    await expectOutcome(await get(buyer, `DiagnosticReport/${order}`), 404, 'not-found');
    await expectOutcome(await get(owner, `DiagnosticReport/${order}-automated`), 404, 'not-found');
    const found = await fhirGet<Bundle>(buyer, `DiagnosticReport?study=${studyId}`);
    expect(ids(found)).toEqual([`${order}-automated`]);
  }, 90_000);
});
