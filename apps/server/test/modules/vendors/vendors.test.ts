import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import path from 'node:path';
import dicomParser from 'dicom-parser';
import { and, eq, inArray } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorWebhookPayload } from '@mi/contracts/vendors';
import {
  analysisRuns,
  analysisServices,
  auditEvents,
  instances,
  notifications,
  orders,
  providers,
  serviceOffers,
  vendorCredentials,
} from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { FIXTURES, makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { verifiedProfessional } from '../../helpers/directory';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

/**
 * An external AI vendor played by a local HTTP server: it receives the signed webhook, reads the
 * study through DICOMweb with the credential it was given, and posts its report back. The app
 * listens on a real port, since the vendor calls it over HTTP like any vendor would.
 */

const silent = pino({ level: 'silent' });
const ENCAPSULATED_PDF = '1.2.840.10008.5.1.4.1.1.104.1';
let ctx: TestContext;
let base: string;
let patient: Patient;
let admin: Patient;
let aiServiceId: string;
let combinedServiceId: string;
/**
 * An organisation an admin added (Northgate Reports), linked to a verified professional: it sells AI
 * Quick Analysis once its webhook is set, and the Complete Analysis Package its professional reads.
 */
let vendorId: string;
/** Another organisation (Harbourview Reads), with its own secret. */
let otherVendorId: string;
let secret: string;
let otherSecret: string;

const db = () => ctx.services.database.db;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createNetServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** What the vendor does with a webhook: answer 202 (and maybe report), redirect, fail or hang. */
type Mode = 'accept' | 'redirect' | 'error' | 'hang';
interface Vendor {
  url: string;
  mode: Mode;
  received: Array<{ payload: VendorWebhookPayload; verified: boolean; headers: IncomingMessage['headers'] }>;
  landingHits: number;
  close(): Promise<void>;
}

const hmac = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');

async function startVendor(key: () => string): Promise<Vendor> {
  const hanging = new Set<ServerResponse>();
  const landing = createServer((_req, res) => {
    vendor.landingHits++;
    res.end('landed');
  });
  await new Promise<void>((r) => landing.listen(0, '127.0.0.1', r));
  const landingUrl = `http://127.0.0.1:${(landing.address() as { port: number }).port}/landing`;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-mi-timestamp']);
      // The vendor checks our signature with its own HMAC, as the protocol document says.
      const verified = req.headers['x-mi-signature'] === `v1=${hmac(key(), `${ts}.${body}`)}`;
      vendor.received.push({
        payload: JSON.parse(body) as VendorWebhookPayload,
        verified,
        headers: req.headers,
      });
      if (vendor.mode === 'redirect') {
        res.writeHead(302, { location: landingUrl }).end();
      } else if (vendor.mode === 'error') {
        res.writeHead(500).end();
      } else if (vendor.mode === 'hang') {
        hanging.add(res);
      } else {
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":true}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const vendor: Vendor = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    mode: 'accept',
    received: [],
    landingHits: 0,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await new Promise((r) => landing.close(r));
    },
  };
  return vendor;
}

let vendor: Vendor;

const call = (p: Patient, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  ctx.app.inject({
    method,
    url,
    headers: p.auth,
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
  });

/** Pays for a service from a provider on a study with the sandbox's succeeding card. */
async function buy(
  serviceId: string,
  providerId: string,
  studyId: string,
): Promise<{ id: string; orderStatus: string }> {
  const intent = await call(patient, 'POST', '/api/payments/create-payment-intent', {
    serviceId,
    providerId,
    studyId,
  });
  expect(intent.statusCode, intent.body).toBe(200);
  const paid = await call(patient, 'POST', '/api/payments/sandbox/confirm', {
    clientSecret: intent.json().clientSecret,
    card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
  });
  expect(paid.statusCode, paid.body).toBe(200);
  return paid.json().purchase;
}

const orderStatus = async (id: string) =>
  (await db().select({ status: orders.status }).from(orders).where(eq(orders.id, id)))[0]!.status;

/** The webhook the vendor received for this order (the job sends it right after payment). */
const webhookFor = (orderId: string) =>
  eventually(async () => vendor.received.find((r) => r.payload.orderId === orderId), 20_000);

/** A vendor's DICOMweb request with its credential. */
const dicomweb = (payload: VendorWebhookPayload, pathAndQuery: string, accept = 'application/dicom+json') =>
  fetch(`${payload.dicomweb.baseUrl}${pathAndQuery}`, {
    headers: { authorization: `Bearer ${payload.dicomweb.token}`, accept },
  });

/** Posts a report signed with `key` (the provider's secret by default) at `timestamp`. */
async function postReport(
  url: string,
  report: unknown,
  opts: { key?: string; timestamp?: number; raw?: { body: string; headers: Record<string, string> } } = {},
) {
  const body = opts.raw?.body ?? JSON.stringify(report);
  const ts = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const headers = opts.raw?.headers ?? {
    'content-type': 'application/json',
    'x-mi-timestamp': String(ts),
    'x-mi-signature': `v1=${hmac(opts.key ?? secret, `${ts}.${body}`)}`,
  };
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, body, headers };
}

const REPORT = {
  title: 'Chest CT <script>alert(1)</script>',
  findings: 'No focal abnormality in the 1 image read. Lines\nkept & <b>escaped</b>.',
  impression: 'Technically adequate study.',
  recommendation: 'None.',
  sections: [{ heading: 'Model', text: 'vendor-model 2.1' }],
};

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ PUBLIC_URL: base, VENDOR_WEBHOOK_TIMEOUT_SECONDS: '1' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  patient = await newPatient(ctx, 'patient-vendor@example.com');
  admin = await newPatient(ctx, 'admin-vendor@example.com');
  await ctx.services.users.update(admin.id, { role: 'admin' });
  const serviceId = async (name: string) =>
    (
      await db()
        .select({ id: analysisServices.id })
        .from(analysisServices)
        .where(eq(analysisServices.name, name))
    )[0]!.id;
  aiServiceId = await serviceId('AI Quick Analysis');
  combinedServiceId = await serviceId('Complete Analysis Package');
  // Organisations are added by admins; their offers are sold once someone can deliver them.
  const reader = await verifiedProfessional(ctx, 'reader-vendor@example.com');
  const organisation = async (name: string, email: string, linkedUserId: string | null) => {
    const [row] = await db()
      .insert(providers)
      .values({
        name,
        specialty: 'AI analysis',
        email,
        emailNormalized: email,
        kind: 'organisation',
        listed: 'directory',
        linkedUserId,
      })
      .returning({ id: providers.id });
    return row!.id;
  };
  vendorId = await organisation('Northgate Reports', 'northgate.reports@example.org', reader.id);
  otherVendorId = await organisation('Harbourview Reads', 'harbourview.reads@example.net', null);
  await db()
    .insert(serviceOffers)
    .values([
      { serviceId: aiServiceId, providerId: vendorId, priceCents: 4999 },
      { serviceId: combinedServiceId, providerId: vendorId, priceCents: 26999 },
      { serviceId: aiServiceId, providerId: otherVendorId, priceCents: 5499 },
    ]);
  vendor = await startVendor(() => secret);
}, 60_000);
afterAll(async () => {
  await vendor?.close();
  await ctx?.close();
});

describe('admin: a provider becomes an external AI vendor', () => {
  it('is missing (404) for everyone but admins', async () => {
    for (const [method, suffix] of [
      ['PUT', ''],
      ['POST', '/secret'],
      ['DELETE', ''],
    ] as const) {
      const res = await call(patient, method, `/api/admin/providers/${vendorId}/vendor${suffix}`, {
        webhookUrl: 'https://vendor.example.com/hook',
      });
      expect(res.statusCode, `${method} ${suffix}`).toBe(404);
    }
  });

  it('takes https URLs (and loopback http outside production), makes a secret shown once, rotates it', async () => {
    for (const bad of [
      'ftp://vendor.example.com/x',
      'http://vendor.example.com/hook',
      'https://u:p@vendor.example.com/',
      'not a url',
      // Inside addresses, even where loopback is allowed (webhook-target.test.ts has the rest).
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data/',
    ])
      expect(
        (await call(admin, 'PUT', `/api/admin/providers/${vendorId}/vendor`, { webhookUrl: bad })).statusCode,
        bad,
      ).toBe(422);
    const first = await call(admin, 'PUT', `/api/admin/providers/${vendorId}/vendor`, {
      webhookUrl: 'https://vendor.example.com/hook',
    });
    expect(first.statusCode, first.body).toBe(200);
    const made = first.json().data as { secret: string; vendor: { webhookUrl: string } };
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    expect(made.vendor.webhookUrl).toBe('https://vendor.example.com/hook');
    // Changing the URL keeps the secret, and does not show it again.
    const moved = await call(admin, 'PUT', `/api/admin/providers/${vendorId}/vendor`, {
      webhookUrl: vendor.url,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data.secret).toBeUndefined();
    const rotated = await call(admin, 'POST', `/api/admin/providers/${vendorId}/vendor/secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    secret = rotated.json().data.secret as string;
    expect(secret).not.toBe(made.secret);
    // Held sealed, never in the clear; the admin list shows the URL and never the secret.
    const [row] = await db().select().from(providers).where(eq(providers.id, vendorId));
    expect(row!.vendorSecretSealed).toBeTruthy();
    expect(row!.vendorSecretSealed).not.toContain(secret.slice(6, 20));
    const list = await call(admin, 'GET', '/api/admin/providers');
    expect(list.body).not.toContain(secret);
    const entry = (list.json().data as Array<{ id: string; vendor: unknown }>).find((p) => p.id === vendorId);
    expect(entry!.vendor).toMatchObject({ webhookUrl: vendor.url });
    // The public directory says nothing of it.
    expect((await call(patient, 'GET', '/api/providers')).body).not.toContain(vendor.url);

    const other = await call(admin, 'PUT', `/api/admin/providers/${otherVendorId}/vendor`, {
      webhookUrl: 'https://other-vendor.example.com/hook',
    });
    otherSecret = other.json().data.secret as string;
    // Nothing secret reached the audit log.
    const audits = await db()
      .select()
      .from(auditEvents)
      .where(inArray(auditEvents.targetId, [vendorId, otherVendorId]));
    expect(JSON.stringify(audits)).not.toContain(secret);
    expect(audits.map((a) => a.action)).toEqual(
      expect.arrayContaining(['provider.vendor_set', 'provider.vendor_secret_rotate']),
    );
  });
});

describe('an AI order sent to the vendor', () => {
  let orderId: string;
  let payload: VendorWebhookPayload;
  let studyUid: string;
  let otherStudyUid: string;
  let studyId: string;
  let patientName: string;

  it('receives a signed webhook with a study-scoped DICOMweb credential and no patient data', async () => {
    const ct = path.join(FIXTURES, 'CT_small.dcm');
    const ds = dicomParser.parseDicom(new Uint8Array(await readFile(ct)));
    studyUid = ds.string('x0020000d')!;
    patientName = ds.string('x00100010')!;
    const patientId = ds.string('x00100020')!;
    [studyId] = (await ingestFiles(ctx, patient.id, [ct])) as [string];
    await ingestFiles(ctx, patient.id, [path.join(FIXTURES, 'MR_small.dcm')]);
    otherStudyUid = dicomParser
      .parseDicom(new Uint8Array(await readFile(path.join(FIXTURES, 'MR_small.dcm'))))
      .string('x0020000d')!;

    vendor.mode = 'accept';
    const order = await buy(aiServiceId, vendorId, studyId);
    orderId = order.id;
    expect(order.orderStatus).toBe('in_progress');
    const hook = await webhookFor(orderId);
    payload = hook.payload;
    expect(hook.verified).toBe(true);
    expect(hook.headers['x-mi-event']).toBe('order.created');
    expect(payload).toMatchObject({
      event: 'order.created',
      orderId,
      service: { id: aiServiceId, name: 'AI Quick Analysis', type: 'AI' },
      study: { studyInstanceUid: studyUid, modalities: ['CT'], seriesCount: 1, instanceCount: 1 },
      dicomweb: { baseUrl: `${base}/dicomweb` },
      callbackUrl: `${base}/api/vendors/orders/${orderId}/report`,
    });
    expect(payload.dicomweb.token).toMatch(/^mivd_/);
    expect(new Date(payload.dicomweb.expiresAt).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const text = JSON.stringify(payload);
    expect(text).not.toContain(patientName.split('^')[0]!);
    expect(text).not.toContain(patientId);
    // Only the token's hash is kept.
    const creds = await db().select().from(vendorCredentials).where(eq(vendorCredentials.orderId, orderId));
    expect(JSON.stringify(creds)).not.toContain(payload.dicomweb.token);
    const [run] = await eventually(async () => {
      const rows = await db().select().from(analysisRuns).where(eq(analysisRuns.orderId, orderId));
      return rows[0]?.status === 'sent' ? rows : undefined;
    });
    expect(run!.sentAt).toBeTruthy();
  }, 60_000);

  it('the credential reads that one study (QIDO, metadata, WADO-RS) and nothing else', async () => {
    const studiesRes = await dicomweb(payload, '/studies');
    expect(studiesRes.status).toBe(200);
    const found = (await studiesRes.json()) as Array<Record<string, { Value?: unknown[] }>>;
    expect(found.map((s) => s['0020000D']!.Value![0])).toEqual([studyUid]);
    const seriesRes = await dicomweb(payload, `/studies/${studyUid}/series`);
    expect(seriesRes.status).toBe(200);
    const seriesUids = ((await seriesRes.json()) as Array<Record<string, { Value?: string[] }>>).map(
      (s) => s['0020000E']!.Value![0]!,
    );
    expect(seriesUids).toHaveLength(1);
    const inst = (await (
      await dicomweb(payload, `/studies/${studyUid}/series/${seriesUids[0]}/instances`)
    ).json()) as Array<Record<string, { Value?: string[] }>>;
    expect(inst).toHaveLength(1);
    const sop = inst[0]!['00080018']!.Value![0]!;
    const retrieved = await dicomweb(
      payload,
      `/studies/${studyUid}/series/${seriesUids[0]}/instances/${sop}`,
      'multipart/related; type="application/dicom"; transfer-syntax=*',
    );
    expect(retrieved.status).toBe(200);
    const bytes = Buffer.from(await retrieved.arrayBuffer());
    expect(bytes.indexOf('DICM')).toBeGreaterThan(0);
    expect((await dicomweb(payload, `/studies/${studyUid}/metadata`)).status).toBe(200);
    // The patient's other study: the one 404, and absent from searches.
    expect((await dicomweb(payload, `/studies/${otherStudyUid}/series`)).status).toBe(404);
    expect((await dicomweb(payload, `/studies/${otherStudyUid}/metadata`)).status).toBe(404);
    const search = (await (
      await dicomweb(payload, `/studies?StudyInstanceUID=${otherStudyUid}`)
    ).json()) as unknown[];
    expect(search).toEqual([]);
    // Nothing of the API: the credential is no session.
    const api = await fetch(`${base}/api/studies/study/${studyId}`, {
      headers: { authorization: `Bearer ${payload.dicomweb.token}` },
    });
    expect(api.status).toBe(401);
    // Every read is audited with the vendor's provider as the actor.
    const reads = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, vendorId), eq(auditEvents.actorRole, 'vendor')));
    const actions = reads.map((r) => `${r.action}:${r.outcome}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        'dicomweb.search_studies:success',
        'dicomweb.retrieve:success',
        'dicomweb.metadata:success',
        'dicomweb.search_series:denied',
      ]),
    );
    expect(reads.every((r) => (r.details as { orderId?: string }).orderId === orderId)).toBe(true);
  }, 60_000);

  it('refuses a forged, stale, replayed or misdirected callback', async () => {
    const url = payload.callbackUrl;
    // Signed with another vendor's secret, or with nothing: the one 404.
    expect((await postReport(url, REPORT, { key: otherSecret })).status).toBe(404);
    expect(
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(REPORT),
        })
      ).status,
    ).toBe(404);
    // An unknown order.
    const unknown = url.replace(orderId, '00000000-0000-4000-8000-000000000000');
    expect((await postReport(unknown, REPORT)).status).toBe(404);
    // Signed with the right secret, but ten minutes old.
    expect((await postReport(url, REPORT, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(
      401,
    );
    // A body that breaks the rules (checked after the signature).
    const bad = await postReport(url, { findings: 'x'.repeat(20_001), impression: 'y' });
    expect(bad.status).toBe(400);
    expect((await postReport(url, { findings: 'x'.repeat(300 * 1024), impression: 'y' })).status).toBe(413);
    // None of this delivered anything.
    expect(await orderStatus(orderId)).toBe('in_progress');
    const refused = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'vendor.report'), eq(auditEvents.outcome, 'denied')));
    expect(refused.map((r) => (r.details as { reason: string }).reason)).toEqual(
      expect.arrayContaining(['bad_signature', 'unknown_order', 'stale_timestamp', 'bad_body']),
    );
  });

  it('takes the report: the order completes, the report is a series of the study, the credential ends', async () => {
    const first = await postReport(payload.callbackUrl, REPORT);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json).toEqual({ received: true, orderId, orderStatus: 'completed' });
    expect(await orderStatus(orderId)).toBe('completed');
    const stored = await db().select().from(instances).where(eq(instances.studyId, studyId));
    expect(stored).toHaveLength(2);
    expect(stored.filter((i) => i.sopClassUid === ENCAPSULATED_PDF)).toHaveLength(1);
    // The PDF opens for the patient, labelled as the vendor's automated reading.
    const pdf = await call(patient, 'GET', `/api/orders/${orderId}/report`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const told = await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, patient.id), eq(notifications.title, 'Analysis completed')));
    expect(told.length).toBeGreaterThanOrEqual(1);
    const [run] = await db().select().from(analysisRuns).where(eq(analysisRuns.orderId, orderId));
    expect(run!.status).toBe('delivered');
    const delivered = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, orderId), eq(auditEvents.action, 'order.report_delivered')));
    expect(delivered[0]).toMatchObject({ actorId: vendorId, actorRole: 'vendor' });

    // Refused afterwards.
    expect((await dicomweb(payload, '/studies')).status).toBe(401);
    expect((await dicomweb(payload, `/studies/${studyUid}/metadata`)).status).toBe(401);
    // The same request again (a replay) and a fresh second report: 409, nothing changes.
    const replay = await postReport(payload.callbackUrl, null, {
      raw: { body: first.body, headers: first.headers },
    });
    expect(replay.status).toBe(409);
    const second = await postReport(payload.callbackUrl, { ...REPORT, findings: 'Something else.' });
    expect(second.status).toBe(409);
    expect(await db().select().from(instances).where(eq(instances.studyId, studyId))).toHaveLength(2);
  }, 60_000);
});

describe('the credential ends with the order', () => {
  it('is refused once the order is refunded, and once it expires', async () => {
    vendor.mode = 'accept';
    const [studyId] = await ingestFiles(ctx, patient.id, [
      makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), modality: 'CT' }),
    ]);
    const refunded = await buy(aiServiceId, vendorId, studyId!);
    const hook = (await webhookFor(refunded.id)).payload;
    expect((await dicomweb(hook, '/studies')).status).toBe(200);
    await ctx.services.orders.refundOrder(refunded.id, 'test refund');
    expect((await dicomweb(hook, '/studies')).status).toBe(401);
    // A report after the refund changes nothing.
    expect((await postReport(hook.callbackUrl, REPORT)).status).toBe(409);
    expect(await orderStatus(refunded.id)).toBe('refunded');

    const [otherStudy] = await ingestFiles(ctx, patient.id, [
      makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), modality: 'CT' }),
    ]);
    const expiring = await buy(aiServiceId, vendorId, otherStudy!);
    const hook2 = (await webhookFor(expiring.id)).payload;
    expect((await dicomweb(hook2, '/studies')).status).toBe(200);
    await db()
      .update(vendorCredentials)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(vendorCredentials.orderId, expiring.id));
    expect((await dicomweb(hook2, '/studies')).status).toBe(401);
    await ctx.services.orders.refundOrder(expiring.id, 'test refund');
  }, 60_000);
});

describe('webhook calls that fail', () => {
  /** A CT study of the patient, and an AI order of it from the vendor (the job sends it once). */
  async function sentOrder(): Promise<string> {
    const [studyId] = await ingestFiles(ctx, patient.id, [
      makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), modality: 'CT' }),
    ]);
    const order = await buy(aiServiceId, vendorId, studyId!);
    await webhookFor(order.id);
    return order.id;
  }

  it('does not follow a redirect: it is a failure, retried, and the order is refunded after the last', async () => {
    vendor.mode = 'redirect';
    const orderId = await sentOrder();
    let outcome: string | undefined;
    for (let i = 0; i < 10 && outcome !== 'refunded' && outcome !== 'skipped'; i++)
      outcome = await ctx.services.analysis.runOrder(orderId, silent).catch(() => 'retry');
    await eventually(async () => (await orderStatus(orderId)) === 'refunded');
    expect(vendor.landingHits).toBe(0);
    expect(vendor.received.filter((r) => r.payload.orderId === orderId).length).toBeGreaterThanOrEqual(4);
    const failures = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, orderId), eq(auditEvents.action, 'vendor.webhook')));
    expect(failures.every((f) => f.outcome === 'failure')).toBe(true);
    expect(JSON.stringify(failures[0]!.details)).toContain('redirect (302)');
    // Each failed attempt's credential was ended at once.
    const live = await db().select().from(vendorCredentials).where(eq(vendorCredentials.orderId, orderId));
    expect(live.every((c) => c.revokedAt)).toBe(true);
    const told = await db()
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.userId, patient.id), eq(notifications.title, 'Analysis could not be completed')),
      );
    expect(told.length).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it('gives up on a vendor that hangs after the timeout', async () => {
    vendor.mode = 'hang';
    const orderId = await sentOrder();
    const started = Date.now();
    await expect(ctx.services.analysis.runOrder(orderId, silent)).rejects.toThrow(
      /did not answer within 1 s/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    vendor.mode = 'error';
    await expect(ctx.services.analysis.runOrder(orderId, silent)).rejects.toThrow(/answered 500/);
    await ctx.services.orders.refundOrder(orderId, 'test refund');
  }, 60_000);
});

describe('a Complete Analysis Package from the vendor', () => {
  it('gets the vendor’s reading as its automated part and stays open for the professional', async () => {
    vendor.mode = 'accept';
    const mr = path.join(FIXTURES, 'MR_small.dcm');
    // A second patient, so the fixture MR is a study of its own.
    const other = await newPatient(ctx, 'patient2-vendor@example.com');
    const saved = patient;
    patient = other;
    try {
      const [studyId] = await ingestFiles(ctx, other.id, [mr]);
      const order = await buy(combinedServiceId, vendorId, studyId!);
      expect(order.orderStatus).toBe('pending_approval');
      const hook = (await webhookFor(order.id)).payload;
      expect(hook.service.type).toBe('Combined');
      expect((await dicomweb(hook, '/studies')).status).toBe(200);
      const res = await postReport(hook.callbackUrl, REPORT);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.orderStatus).toBe('pending_approval');
      expect(await orderStatus(order.id)).toBe('pending_approval');
      const stored = await db().select().from(instances).where(eq(instances.studyId, studyId!));
      expect(stored.filter((i) => i.sopClassUid === ENCAPSULATED_PDF)).toHaveLength(1);
      expect((await dicomweb(hook, '/studies')).status).toBe(401);
      expect((await postReport(hook.callbackUrl, { ...REPORT, findings: 'again' })).status).toBe(409);
      const told = await db()
        .select()
        .from(notifications)
        .where(and(eq(notifications.userId, other.id), eq(notifications.title, 'Automated analysis ready')));
      expect(told).toHaveLength(1);
      // The job does not run it again.
      expect(await ctx.services.analysis.runOrder(order.id, silent)).toBe('skipped');
    } finally {
      patient = saved;
    }
  }, 60_000);
});

describe('a vendor that never delivers', () => {
  it('an AI order it never reports on is refunded once its time is up, and its credential ends', async () => {
    vendor.mode = 'accept';
    const [studyId] = await ingestFiles(ctx, patient.id, [
      makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), modality: 'CT' }),
    ]);
    const order = await buy(aiServiceId, vendorId, studyId!);
    const hook = (await webhookFor(order.id)).payload;
    await eventually(async () => {
      const [run] = await db().select().from(analysisRuns).where(eq(analysisRuns.orderId, order.id));
      return run?.status === 'sent';
    });
    expect(await ctx.services.analysis.expireVendorSilence(silent)).toBe(0);
    await db()
      .update(analysisRuns)
      .set({ sentAt: new Date(Date.now() - 25 * 3600_000) })
      .where(eq(analysisRuns.orderId, order.id));
    expect(await ctx.services.analysis.expireVendorSilence(silent)).toBe(1);
    expect(await orderStatus(order.id)).toBe('refunded');
    expect((await dicomweb(hook, '/studies')).status).toBe(401);
    expect((await postReport(hook.callbackUrl, REPORT)).status).toBe(409);
    expect(await ctx.services.analysis.expireVendorSilence(silent)).toBe(0);
  }, 60_000);

  it('a package whose vendor keeps failing gets the built-in report as its automated part', async () => {
    vendor.mode = 'error';
    const other = await newPatient(ctx, 'patient3-vendor@example.com');
    const saved = patient;
    patient = other;
    try {
      const [studyId] = await ingestFiles(ctx, other.id, [
        makeDicom({
          studyUid: uid(),
          seriesUid: uid(),
          sopUid: uid(),
          modality: 'MR',
          rows: 16,
          columns: 16,
        }),
      ]);
      const order = await buy(combinedServiceId, vendorId, studyId!);
      await webhookFor(order.id);
      let outcome: string | undefined;
      for (let i = 0; i < 10 && outcome !== 'delivered' && outcome !== 'skipped'; i++)
        outcome = await ctx.services.analysis.runOrder(order.id, silent).catch(() => 'retry');
      expect(await orderStatus(order.id)).toBe('pending_approval');
      const stored = await db().select().from(instances).where(eq(instances.studyId, studyId!));
      expect(stored.filter((i) => i.sopClassUid === ENCAPSULATED_PDF)).toHaveLength(1);
      const fallback = await db()
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, order.id), eq(auditEvents.action, 'analysis.vendor_fallback')));
      expect(fallback).toHaveLength(1);
    } finally {
      patient = saved;
      vendor.mode = 'accept';
    }
  }, 90_000);
});
