import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { and, eq, sql } from 'drizzle-orm';
import { SHL, SHLInvalidPasscodeError, SHLManifestNotFoundError, SHLViewer } from 'kill-the-clipboard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, notifications } from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { offeringProfessional } from '../../helpers/directory';
import { deliveredExpertReview } from '../../helpers/orders';
import { generateSeries } from '../../helpers/dicom-series';
import { routesOfTree } from '../../helpers/route-tree';
import { newPatient, type Patient } from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';
import { fhirErrors } from '../fhir/fhir-validator';

const require = createRequire(import.meta.url);

/** A free local port, so PUBLIC_URL (which links carry) names the address the app listens on. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

interface DicomwebClient {
  retrieveStudy(opts: { studyInstanceUID: string }): Promise<ArrayBuffer[]>;
}

type Json = Record<string, unknown>;
type BundleLike = { resourceType: string; entry?: Array<{ resource: Json & { resourceType: string } }> };

/** The Authorization value the bundle's DICOMweb Endpoint carries (`header: ['Authorization: …']`). */
function credentialOf(result: { fhirResources: unknown[] }): string {
  const bundle = result.fhirResources[0] as BundleLike;
  const endpoint = bundle.entry!.find((e) => e.resource.resourceType === 'Endpoint' && e.resource.header)!
    .resource as unknown as { header: string[] };
  return endpoint.header[0]!.split(/:\s*/, 2)[1]!;
}

describe('study links (SMART Health Links)', () => {
  let ctx: TestContext;
  let base: string;
  let owner: Patient;
  let stranger: Patient;
  let studyId: string;
  let otherStudyId: string;
  const series = generateSeries({ count: 6, size: 32 });
  const other = generateSeries({ count: 2, size: 32 });

  const call = (p: Patient | null, method: string, url: string, payload?: unknown) =>
    ctx.app.inject({
      method: method as 'GET',
      url,
      headers: p ? p.auth : {},
      ...(payload ? { payload } : {}),
    });
  const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();
  const makeLink = async (body: Json, as: Patient = owner) => {
    const res = await call(as, 'POST', '/api/studies/links', body);
    if (res.statusCode !== 201) throw new Error(`link not made: ${res.statusCode} ${res.body}`);
    return res.json() as { id: string; shlink: string; viewerUrl: string; qrSvg: string; link: Json };
  };
  /** Resolves a link as a receiver would, recording each manifest answer's body. */
  const resolve = async (viewerUrl: string, params: { recipient: string; passcode?: string }) => {
    const answers: Array<{ status: number; body: string }> = [];
    const viewer = new SHLViewer({
      shlinkURI: viewerUrl,
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        answers.push({ status: res.status, body: await res.clone().text() });
        return res;
      },
    });
    try {
      return { result: await viewer.resolveSHL(params), answers };
    } catch (error) {
      return { error, answers };
    }
  };

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ PUBLIC_URL: base });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    owner = await newPatient(ctx, 'owner@example.com');
    stranger = await newPatient(ctx, 'stranger@example.com');
    await call(owner, 'PUT', `/api/users/${owner.id}`, { shareMedicalData: true, dateOfBirth: '1980-02-03' });
    studyId = (
      await ingestFiles(
        ctx,
        owner.id,
        series.files.map((f) => f.bytes),
      )
    )[0]!;
    otherStudyId = (
      await ingestFiles(
        ctx,
        owner.id,
        other.files.map((f) => f.bytes),
      )
    )[0]!;
    // A delivered report on the first study, as fulfilment delivers it.
    const pro = await offeringProfessional(ctx, 'reader@example.com');
    await deliveredExpertReview(ctx, owner, pro, studyId);
  }, 120_000);
  afterAll(async () => {
    await ctx?.close();
  });

  it('makes a conforming SMART Health Link: key, manifest URL, payload after our page, QR code', async () => {
    const made = await makeLink({
      studyIds: [studyId],
      expiresAt: inMinutes(3 * 24 * 60),
      passcode: 'open-sesame',
      label: 'For Dr Who <b>',
    });
    expect(made.viewerUrl).toBe(`${base}/shl#${made.shlink}`);
    expect(made.shlink).toMatch(/^shlink:\/[A-Za-z0-9_-]+$/);
    const shl = SHL.parse(made.viewerUrl);
    expect(shl.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(shl.url.length).toBeLessThanOrEqual(128);
    expect(shl.url).toMatch(new RegExp(`^${base}/api/shl/m/[A-Za-z0-9_-]{43}$`));
    expect(shl.flag).toBe('P');
    expect(shl.label).toBe('For Dr Who <b>');
    expect(Math.abs(shl.exp! * 1000 - Date.parse(inMinutes(3 * 24 * 60)))).toBeLessThan(5_000);
    // Minified payload with exactly the IG's members.
    const payload = JSON.parse(Buffer.from(made.shlink.slice('shlink:/'.length), 'base64url').toString());
    expect(Object.keys(payload).sort()).toEqual(['exp', 'flag', 'key', 'label', 'url', 'v']);
    expect(made.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    // Two links never share a key or a manifest.
    const again = await makeLink({ studyIds: [studyId], expiresAt: inMinutes(60) });
    const shl2 = SHL.parse(again.viewerUrl);
    expect(shl2.key).not.toBe(shl.key);
    expect(shl2.url).not.toBe(shl.url);
    expect(shl2.flag).toBeUndefined();
  });

  it('refuses a policy that breaks the rules, and a study that is not the caller’s', async () => {
    const long = await call(owner, 'POST', '/api/studies/links', {
      studyIds: [studyId],
      expiresAt: inMinutes(2 * 24 * 60),
    });
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toMatch(/more than 24 hours needs a passcode/);
    const checkin = await call(owner, 'POST', '/api/studies/links', {
      studyIds: [studyId],
      mode: 'checkin',
      expiresAt: inMinutes(24 * 60),
    });
    expect(checkin.statusCode).toBe(400);
    const past = await call(owner, 'POST', '/api/studies/links', {
      studyIds: [studyId],
      expiresAt: inMinutes(-5),
    });
    expect(past.statusCode).toBe(400);
    const notTheirs = await call(stranger, 'POST', '/api/studies/links', {
      studyIds: [studyId],
      expiresAt: inMinutes(60),
    });
    expect(notTheirs.statusCode).toBe(404);
    expect((await call(null, 'GET', '/api/studies/links')).statusCode).toBe(401);
  });

  it('kill-the-clipboard resolves a P link to a FHIR bundle that validates; a wrong passcode spends the budget', async () => {
    const made = await makeLink({
      studyIds: [studyId, otherStudyId],
      expiresAt: inMinutes(60),
      passcode: 'right-one',
    });
    const wrong1 = await resolve(made.viewerUrl, { recipient: 'Dr Eve', passcode: 'nope' });
    expect(wrong1.error).toBeInstanceOf(SHLInvalidPasscodeError);
    expect(JSON.parse(wrong1.answers[0]!.body)).toEqual({ remainingAttempts: 9 });
    const wrong2 = await resolve(made.viewerUrl, { recipient: 'Dr Eve', passcode: 'nope2' });
    expect(JSON.parse(wrong2.answers[0]!.body)).toEqual({ remainingAttempts: 8 });

    const { result } = await resolve(made.viewerUrl, { recipient: 'Dr Ada <script>', passcode: 'right-one' });
    expect(result).toBeDefined();
    const [bundle] = result!.fhirResources as unknown as BundleLike[];
    expect(bundle!.resourceType).toBe('Bundle');
    const types = bundle!.entry!.map((e) => e.resource.resourceType);
    expect(types).toEqual(
      expect.arrayContaining([
        'Patient',
        'ImagingStudy',
        'Endpoint',
        'DiagnosticReport',
        'DocumentReference',
      ]),
    );
    expect(types.filter((t) => t === 'ImagingStudy')).toHaveLength(2);
    expect(fhirErrors(bundle as never)).toEqual([]);
    const patient = bundle!.entry!.find((e) => e.resource.resourceType === 'Patient')!.resource;
    expect(patient.birthDate).toBe('1980-02-03');

    // The listing shows the opens, the last recipient and the budget left.
    const listed = (await call(owner, 'GET', `/api/studies/links?studyId=${otherStudyId}`)).json()
      .links as Json[];
    const mine = listed.find((l) => l.id === made.id)!;
    expect(mine).toMatchObject({
      opens: 1,
      lastRecipient: 'Dr Ada <script>',
      passcodeAttemptsLeft: 8,
      status: 'active',
    });

    // The receipts list every use, wrong passcodes included, under the recipient's name.
    const receipts = (await call(owner, 'GET', `/api/studies/${studyId}/access`)).json() as {
      events: Array<{ action: string; actor: string; detail: string | null }>;
    };
    const actions = receipts.events.map((e) => `${e.action} | ${e.actor}`);
    expect(actions).toContain('Opened by link | Dr Ada <script> (by link)');
    expect(actions).toContain('Wrong link passcode | Dr Eve (by link)');
    // The owner is told of the first open.
    const told = await eventually(async () => {
      const rows = await ctx.services.database.db
        .select()
        .from(notifications)
        .where(
          and(eq(notifications.userId, owner.id), eq(notifications.title, 'Your study link was opened')),
        );
      return rows.length ? rows : null;
    });
    expect(told[0]!.description).toContain('Dr Ada <script>');
  });

  it('the Endpoint’s address and header let dicomweb-client retrieve the study byte-identical, and only its studies', async () => {
    const made = await makeLink({ studyIds: [studyId], expiresAt: inMinutes(60) });
    const { result } = await resolve(made.viewerUrl, { recipient: 'Radiology desk' });
    const bundle = result!.fhirResources[0] as unknown as BundleLike;
    const endpoint = bundle.entry!.find(
      (e) =>
        e.resource.resourceType === 'Endpoint' &&
        (e.resource.connectionType as { code: string }).code === 'dicom-wado-rs',
    )!.resource as unknown as { address: string; header: string[] };
    expect(endpoint.address).toBe(`${base}/dicomweb`);
    const [name, value] = endpoint.header[0]!.split(/:\s*/, 2) as [string, string];
    (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest ??= require('xhr2');
    const { api } = require('dicomweb-client') as {
      api: { DICOMwebClient: new (o: unknown) => DicomwebClient };
    };
    const client = new api.DICOMwebClient({ url: endpoint.address, headers: { [name]: value } });
    const all = await client.retrieveStudy({ studyInstanceUID: series.studyInstanceUid });
    // Every uploaded instance, byte for byte, and the delivered report's PDF instance.
    expect(all).toHaveLength(series.files.length + 1);
    expect(all.map((b) => Buffer.from(b).toString('base64'))).toEqual(
      expect.arrayContaining(series.files.map((f) => f.bytes.toString('base64'))),
    );
    // The other study is not on this link: the same credential reads nothing of it.
    const otherRead = await fetch(`${base}/dicomweb/studies/${other.studyInstanceUid}/metadata`, {
      headers: { [name]: value },
    });
    expect(otherRead.status).toBe(404);
    // The FHIR API answers the link's credential for its studies only.
    const fhir = await fetch(`${base}/fhir/R4/ImagingStudy/${otherStudyId}`, { headers: { [name]: value } });
    expect(fhir.status).toBe(404);
    const own = await fetch(`${base}/fhir/R4/ImagingStudy/${studyId}`, { headers: { [name]: value } });
    expect(own.status).toBe(200);

    // Revoked: the manifest and the credential stop at once.
    expect((await call(owner, 'DELETE', `/api/studies/links/${made.id}`)).statusCode).toBe(204);
    const after = await fetch(`${base}/dicomweb/studies/${series.studyInstanceUid}/metadata`, {
      headers: { [name]: value },
    });
    expect(after.status).toBe(401);
    const again = await resolve(made.viewerUrl, { recipient: 'Radiology desk' });
    expect(again.error).toBeInstanceOf(SHLManifestNotFoundError);
  });

  it('resolves a U (check-in) link by GET with the recipient, and refuses it expired', async () => {
    const made = await makeLink({ studyIds: [studyId], mode: 'checkin', expiresAt: inMinutes(15) });
    const shl = SHL.parse(made.viewerUrl);
    expect(shl.flag).toBe('U');
    const { result } = await resolve(made.viewerUrl, { recipient: 'Front desk, St Mary' });
    const bundle = result!.fhirResources[0] as unknown as BundleLike;
    const kinds = new Set(bundle.entry!.map((e) => e.resource.resourceType));
    expect([...kinds]).toEqual(
      expect.arrayContaining(['Patient', 'ImagingStudy', 'Endpoint', 'DiagnosticReport']),
    );
    expect(fhirErrors(bundle as never)).toEqual([]);
    // Without a recipient the direct file is refused.
    expect((await fetch(shl.url)).status).toBe(400);

    // Expired (the owner shortened it to the past is not allowed, so move time through the database).
    await ctx.services.database.db.execute(
      sql`update study_links set expires_at = now() - interval '1 second' where id = ${made.id}`,
    );
    const expired = await fetch(`${shl.url}?recipient=x`);
    expect(expired.status).toBe(404);
  });

  it('honours embeddedLengthMax with a location URL that needs no further credential', async () => {
    const made = await makeLink({ studyIds: [studyId], expiresAt: inMinutes(60) });
    const shl = SHL.parse(made.viewerUrl);
    const res = await fetch(shl.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: 'Dr Small', embeddedLengthMax: 10 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const manifest = (await res.json()) as { files: Array<{ location?: string; embedded?: string }> };
    expect(manifest.files[0]!.embedded).toBeUndefined();
    const loc = await fetch(manifest.files[0]!.location!);
    expect(loc.status).toBe(200);
    const jwe = await loc.text();
    const [header] = jwe.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({
      alg: 'dir',
      enc: 'A256GCM',
      cty: 'application/fhir+json',
      zip: 'DEF',
    });
    // Each encryption draws its own IV.
    const second = await fetch(shl.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: 'Dr Small' }),
    });
    const embedded = ((await second.json()) as { files: Array<{ embedded: string }> }).files[0]!.embedded;
    expect(embedded.split('.')[2]).not.toBe(jwe.split('.')[2]);
  });

  it('holds the passcode budget under 20 parallel wrong guesses, then disables the link and tells the owner', async () => {
    const made = await makeLink({ studyIds: [studyId], expiresAt: inMinutes(60), passcode: 'correct horse' });
    const shl = SHL.parse(made.viewerUrl);
    const guesses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(shl.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ recipient: `guesser ${i}`, passcode: `wrong ${i}` }),
        }).then(async (r) => ({ status: r.status, body: await r.text() })),
      ),
    );
    const refused401 = guesses.filter((g) => g.status === 401);
    expect(refused401.length).toBeLessThanOrEqual(10);
    expect(guesses.every((g) => g.status === 401 || g.status === 404)).toBe(true);
    const left = refused401.map(
      (g) => (JSON.parse(g.body) as { remainingAttempts: number }).remainingAttempts,
    );
    expect(new Set(left).size).toBe(left.length);
    expect(Math.min(...left)).toBe(0);
    // Now even the right passcode opens nothing.
    const right = await resolve(made.viewerUrl, { recipient: 'Dr Late', passcode: 'correct horse' });
    expect(right.error).toBeInstanceOf(SHLManifestNotFoundError);
    const listed = (await call(owner, 'GET', '/api/studies/links')).json().links as Json[];
    expect(listed.find((l) => l.id === made.id)).toMatchObject({
      status: 'disabled',
      passcodeAttemptsLeft: 0,
    });
    await eventually(async () => {
      const rows = await ctx.services.database.db
        .select()
        .from(notifications)
        .where(and(eq(notifications.userId, owner.id), eq(notifications.title, 'A study link was disabled')));
      return rows.length > 0;
    });
  });

  it('pausing, a maximum of opens, turning sharing off and transferring the study end access at once', async () => {
    const made = await makeLink({ studyIds: [studyId], expiresAt: inMinutes(60), maxOpens: 2 });
    const first = await resolve(made.viewerUrl, { recipient: 'One' });
    expect(first.result).toBeDefined();
    const auth = { authorization: credentialOf(first.result!) };
    const metadata = () =>
      fetch(`${base}/dicomweb/studies/${series.studyInstanceUid}/metadata`, { headers: auth });
    expect((await metadata()).status).toBe(200);

    const paused = await call(owner, 'PATCH', `/api/studies/links/${made.id}`, { paused: true });
    expect(paused.json().status).toBe('paused');
    expect((await metadata()).status).toBe(401);
    expect((await resolve(made.viewerUrl, { recipient: 'Two' })).error).toBeInstanceOf(
      SHLManifestNotFoundError,
    );
    await call(owner, 'PATCH', `/api/studies/links/${made.id}`, { paused: false });
    expect((await metadata()).status).toBe(200);

    // Second open allowed, third refused (maximum 2).
    expect((await resolve(made.viewerUrl, { recipient: 'Two' })).result).toBeDefined();
    expect((await resolve(made.viewerUrl, { recipient: 'Three' })).error).toBeInstanceOf(
      SHLManifestNotFoundError,
    );
    // Opened viewers keep reading while the link lives.
    expect((await metadata()).status).toBe(200);

    // Sharing off ends it; on again restores it.
    await call(owner, 'PUT', `/api/users/${owner.id}`, { shareMedicalData: false });
    expect((await metadata()).status).toBe(401);
    await call(owner, 'PUT', `/api/users/${owner.id}`, { shareMedicalData: true });
    expect((await metadata()).status).toBe(200);

    // A stranger cannot see, change or revoke the owner's link.
    expect(
      (await call(stranger, 'PATCH', `/api/studies/links/${made.id}`, { paused: true })).statusCode,
    ).toBe(404);
    expect((await call(stranger, 'DELETE', `/api/studies/links/${made.id}`)).statusCode).toBe(404);
    expect(((await call(stranger, 'GET', '/api/studies/links')).json().links as Json[]).length).toBe(0);

    // The study changes hands: the link (its old owner's) opens it no more.
    await ctx.services.database.db.execute(
      sql`update studies set owner_id = ${stranger.id} where id = ${studyId}`,
    );
    expect((await metadata()).status).toBe(404);
    await ctx.services.database.db.execute(
      sql`update studies set owner_id = ${owner.id} where id = ${studyId}`,
    );
    expect((await metadata()).status).toBe(200);

    // Extending past a day needs a passcode the link does not have.
    const extend = await call(owner, 'PATCH', `/api/studies/links/${made.id}`, {
      expiresAt: inMinutes(3 * 24 * 60),
    });
    expect(extend.statusCode).toBe(400);
  });

  it('a guessed or tampered manifest id, file token or credential gets 404 / 401', async () => {
    const made = await makeLink({ studyIds: [studyId], expiresAt: inMinutes(60) });
    const shl = SHL.parse(made.viewerUrl);
    const tampered = shl.url.slice(0, -1) + (shl.url.endsWith('A') ? 'B' : 'A');
    const post = (url: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ recipient: 'x' }),
      });
    expect((await post(tampered)).status).toBe(404);
    expect((await post(`${base}/api/shl/m/short`)).status).toBe(404);
    expect((await fetch(`${base}/api/shl/f/${'A'.repeat(43)}`)).status).toBe(404);
    const forged = { authorization: `Bearer shl_${'A'.repeat(43)}` };
    expect(
      (await fetch(`${base}/dicomweb/studies/${series.studyInstanceUid}/metadata`, { headers: forged }))
        .status,
    ).toBe(401);
    const viewer = await fetch(`${base}/api/shl/viewer`, {
      method: 'POST',
      headers: { ...forged, 'content-type': 'application/json' },
      body: JSON.stringify({ studyId }),
    });
    expect(viewer.status).toBe(404);
    // A missing recipient is a clear 400.
    const noName = await fetch(shl.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(noName.status).toBe(400);
    // Nothing of the link appears in the audit trail's details but ids, label and recipient.
    const rows = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'link.open'));
    for (const r of rows) expect(JSON.stringify(r.details)).not.toMatch(/shl_|Phantom/);
  });

  it('opens the images through a viewer grant read as the link, and downloads only when allowed', async () => {
    const noDownload = await makeLink({ studyIds: [studyId], expiresAt: inMinutes(60) });
    const opened = await resolve(noDownload.viewerUrl, { recipient: 'Dr Viewer' });
    const auth = { authorization: credentialOf(opened.result!), 'content-type': 'application/json' };
    const view = await fetch(`${base}/api/shl/viewer`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ studyId }),
    });
    expect(view.status).toBe(200);
    const { viewerUrl } = (await view.json()) as { viewerUrl: string };
    expect(viewerUrl).toContain(`StudyInstanceUIDs=${series.studyInstanceUid}`);
    expect(viewerUrl).toMatch(/#grant=vg_/);
    const denied = await fetch(`${base}/api/shl/download`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ studyId }),
    });
    expect(denied.status).toBe(404);

    const withDownload = await makeLink({
      studyIds: [studyId],
      expiresAt: inMinutes(60),
      allowDownload: true,
    });
    const opened2 = await resolve(withDownload.viewerUrl, { recipient: 'Dr Download' });

    const ticket = await fetch(`${base}/api/shl/download`, {
      method: 'POST',
      headers: { authorization: credentialOf(opened2.result!), 'content-type': 'application/json' },
      body: JSON.stringify({ studyId }),
    });
    expect(ticket.status).toBe(200);
    const { url } = (await ticket.json()) as { url: string };
    const zip = await fetch(url);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const bytes = Buffer.from(await zip.arrayBuffer());
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    // Resumable: a range of the same archive.
    const part = await fetch(url, { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);
  });

  it('a link credential is an actor of its own: over every GET route it reads only its studies’ DICOMweb and FHIR, and learns nothing of the owner’s account', async () => {
    const made = await makeLink({ studyIds: [studyId], expiresAt: inMinutes(60) });
    const opened = await resolve(made.viewerUrl, { recipient: 'Matrix reader' });
    const authorization = credentialOf(opened.result!);
    const values: Record<string, string> = {
      userId: owner.id,
      studyId,
      id: studyId,
      study: series.studyInstanceUid,
      series: series.seriesInstanceUid,
      instance: series.files[0]!.sopInstanceUid,
      frames: '1',
      frame: '1',
      tag: '7FE00010',
      type: 'ImagingStudy',
    };
    // What a link's recipient may read: its studies through DICOMweb (searches find only those) and FHIR.
    const allowed = /^\/(?:dicomweb|fhir\/R4)\//;
    const routes = routesOfTree(ctx.app.printRoutes({ commonPrefix: false })).filter(
      (r) => r.method === 'GET',
    );
    expect(routes.length).toBeGreaterThan(60);
    const answeredOk: string[] = [];
    for (const route of routes) {
      const url = route.path.replace(/\{(\*|\w+)\}/g, (_m, name: string) => values[name] ?? 'x');
      const res = await ctx.app.inject({ method: 'GET', url, headers: { authorization } });
      expect(res.statusCode, `GET ${route.path}`).toBeLessThan(500);
      if (res.statusCode >= 200 && res.statusCode < 300) {
        answeredOk.push(route.path);
        // Public routes (health, configuration, the SPA) answer anyone; none may name the owner.
        expect(res.body, `GET ${route.path}`).not.toContain('owner@example.com');
        if (allowed.test(route.path)) continue;
        // Anywhere else the credential is worth no more than no credential at all.
        const anonymous = await ctx.app.inject({ method: 'GET', url });
        expect(
          anonymous.statusCode,
          `GET ${route.path}: a link credential got ${res.statusCode}`,
        ).toBeLessThan(300);
      }
    }
    expect(answeredOk.filter((p) => allowed.test(p)).length).toBeGreaterThan(5);
    // Its searches find its study only, not the owner's others.
    const found = await ctx.app.inject({
      method: 'GET',
      url: '/dicomweb/studies',
      headers: { authorization },
    });
    const uids = (found.json() as Array<Record<string, { Value: string[] }>>).map(
      (s) => s['0020000D']!.Value[0],
    );
    expect(uids).toEqual([series.studyInstanceUid]);
    const fhirSearch = await ctx.app.inject({
      method: 'GET',
      url: '/fhir/R4/ImagingStudy',
      headers: { authorization },
    });
    expect((fhirSearch.json() as { total: number }).total).toBe(1);
    // The owner's study list, receipts and links are closed to it.
    for (const url of [
      `/api/studies/user/${owner.id}`,
      `/api/studies/${studyId}/access`,
      '/api/studies/links',
    ])
      expect((await ctx.app.inject({ method: 'GET', url, headers: { authorization } })).statusCode).toBe(401);
  });

  it('deleting the study ends the link for it', async () => {
    const [doomed] = await ingestFiles(
      ctx,
      owner.id,
      generateSeries({ count: 1, size: 16 }).files.map((f) => f.bytes),
    );
    const made = await makeLink({ studyIds: [doomed!], expiresAt: inMinutes(60) });
    expect((await resolve(made.viewerUrl, { recipient: 'Before' })).result).toBeDefined();
    expect((await call(owner, 'DELETE', `/api/studies/${owner.id}/${doomed}`)).statusCode).toBeLessThan(300);
    const after = await resolve(made.viewerUrl, { recipient: 'After' });
    expect(after.error).toBeInstanceOf(SHLManifestNotFoundError);
  });
});
