import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Bundle, DocumentReference, ImagingStudy } from '@medplum/fhirtypes';
import dicomParser from 'dicom-parser';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, dataExports, instances, studies } from '../../../src/db/schema/index';
import { readInstance } from '../../../src/dicom-archive/instance-location';
import type { AuthenticatedSession } from '../../../src/modules/auth';
import {
  createExportsRepository,
  createExportsService,
  type Deidentifier,
} from '../../../src/modules/exports';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { offeringProfessional } from '../../helpers/directory';
import { orthancAvailable, startOrthanc } from '../../helpers/orthanc';
import { deliveredExpertReview } from '../../helpers/orders';
import {
  FIXTURES,
  listen,
  makeDicom,
  newPatient,
  readZip,
  uid,
  uploadAndProcess,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';
import { fhirErrors, loadFhirDefinitions } from '../fhir/fhir-validator';

let ctx: TestContext;
let baseUrl: string;
let owner: Patient;
let stranger: Patient;
let admin: Patient;
let pro: Patient;
let ownerStudies: string[];
// The CT study: three images and a delivered report, so a de-identified copy has something to leave out.
let ctStudyId: string;
let strangerStudy: string;
let exportId: string;
let zip: Buffer;
let entries: Map<string, Buffer>;
let clock = new Date('2030-01-01T09:00:00Z');

const DAY = 24 * 3600 * 1000;
const db = () => ctx.services.database.db;
const call = (who: Patient | undefined, method: 'GET' | 'POST', url: string, opts: object = {}) =>
  ctx.app.inject({ method, url, headers: { ...(who?.auth ?? {}) }, ...opts });

async function waitReady(who: Patient, id: string) {
  return eventually(async () => {
    const res = await call(who, 'GET', `/api/exports/${id}`);
    const body = res.json();
    return body.status === 'ready' || body.status === 'failed' ? body : undefined;
  }, 60_000);
}

/** SHA-256 of an instance's Pixel Data value (dicom-parser, an independent reader). */
function pixelHash(bytes: Buffer): string | null {
  const ds = dicomParser.parseDicom(new Uint8Array(bytes));
  const el = ds.elements.x7fe00010;
  if (!el) return null;
  return createHash('sha256')
    .update(
      bytes.subarray(el.dataOffset, el.dataOffset + (el.length === 0xffffffff ? bytes.length : el.length)),
    )
    .digest('hex');
}

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const hasTool = (cmd: string) => spawnSync('which', [cmd]).status === 0;

beforeAll(async () => {
  loadFhirDefinitions();
  // Sessions outlive the clock's jumps (31 minutes, 7 days) so the same users keep asking.
  ctx = await createTestContext(
    { SESSION_IDLE_MINUTES: String(60 * 24 * 30), SESSION_MAX_HOURS: String(24 * 30) },
    { now: () => clock },
  );
  baseUrl = await listen(ctx);
  owner = await newPatient(ctx, 'export-owner@example.com');
  stranger = await newPatient(ctx, 'export-stranger@example.com');
  admin = await newPatient(ctx, 'export-admin@example.com');
  await ctx.services.users.update(admin.id, { role: 'admin' });

  const ct = { studyUid: uid(), seriesUid: uid() };
  const mr = { studyUid: uid(), seriesUid: uid() };
  const files = [
    ...[1, 2, 3].map((n) =>
      makeDicom({
        ...ct,
        sopUid: uid(),
        instanceNumber: n,
        patientName: 'Lovelace^Ada',
        studyDescription: 'CT chest',
      }),
    ),
    ...[1, 2].map((n) =>
      makeDicom({ ...mr, sopUid: uid(), instanceNumber: n, modality: 'MR', patientName: 'Lovelace^Ada' }),
    ),
    `${FIXTURES}/CT_small.dcm`,
  ];
  ownerStudies = await ingestFiles(ctx, owner.id, files);
  const strangers = await ingestFiles(ctx, stranger.id, [
    makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
  ]);
  strangerStudy = strangers[0]!;

  // A delivered report (a PDF, and its DICOM in the study) for the CT study.
  const reader = await offeringProfessional(ctx, 'export-pro@example.com');
  pro = reader;
  const ctStudy = (await db().select().from(studies).where(eq(studies.studyInstanceUid, ct.studyUid)))[0]!;
  await deliveredExpertReview(ctx, owner, reader, ctStudy.id);
  ctStudyId = ctStudy.id;
  ownerStudies = (
    await db().select({ id: studies.id }).from(studies).where(eq(studies.ownerId, owner.id))
  ).map((s) => s.id);
}, 120_000);

afterAll(async () => {
  await ctx?.close();
});

describe('a full export', () => {
  it('is built as a job with progress and a notification, holding every file of every study', async () => {
    const res = await call(owner, 'POST', '/api/exports', { payload: {} });
    expect(res.statusCode, res.body).toBe(202);
    exportId = res.json().id;
    const done = await waitReady(owner, exportId);
    expect(done).toMatchObject({
      status: 'ready',
      progress: 100,
      studyCount: ownerStudies.length,
      error: null,
    });
    expect(done.files).toHaveLength(1);
    expect(done.files[0].url).toBe(
      `/api/exports/${exportId}/files/${encodeURIComponent(done.files[0].name)}`,
    );
    expect(new Date(done.expiresAt).getTime() - new Date(done.readyAt).getTime()).toBe(7 * DAY);

    const dl = await call(owner, 'GET', done.files[0].url);
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['accept-ranges']).toBe('bytes');
    zip = dl.rawPayload;
    expect(zip.length).toBe(done.files[0].size);
    entries = await readZip(zip);

    const dicomFiles = [...entries.keys()].filter((n) => n.startsWith('DICOM/'));
    const stored = await db().select().from(instances).where(eq(instances.studyId, ownerStudies[0]!));
    const all = await db()
      .select({ sop: instances.sopInstanceUid })
      .from(instances)
      .innerJoin(studies, eq(studies.id, instances.studyId))
      .where(eq(studies.ownerId, owner.id));
    expect(stored.length).toBeGreaterThan(0);
    expect(dicomFiles).toHaveLength(all.length);
    for (const name of dicomFiles) expect(name).toMatch(/^DICOM\/ST\d{6}\/SE\d{6}\/IM\d{6}$/);
    expect(entries.has('DICOMDIR')).toBe(true);
    expect(entries.has('index.html')).toBe(true);
    expect(entries.has('FHIR/bundle.json')).toBe(true);
    for (const h of ['shares.csv', 'links.csv', 'orders.csv', 'access.csv', 'history.json'])
      expect(entries.has(`HISTORY/${h}`), h).toBe(true);
    const reports = [...entries.keys()].filter((n) => n.startsWith('REPORTS/'));
    expect(reports).toEqual(['REPORTS/RPT00001.PDF']);
    expect(entries.get('REPORTS/RPT00001.PDF')!.subarray(0, 5).toString()).toBe('%PDF-');

    const notes = (await call(owner, 'GET', '/api/notifications/')).json();
    expect(JSON.stringify(notes)).toContain('Your data export is ready');
  });

  it('holds the files unchanged', async () => {
    const rows = await db()
      .select()
      .from(instances)
      .innerJoin(studies, eq(studies.id, instances.studyId))
      .where(eq(studies.ownerId, owner.id));
    const exported = new Set(
      [...entries.entries()]
        .filter(([n]) => n.startsWith('DICOM/'))
        .map(([, b]) => createHash('sha256').update(b).digest('hex')),
    );
    for (const r of rows) {
      const bytes = await readInstance(ctx.services.storage, r.instances);
      expect(exported.has(createHash('sha256').update(bytes).digest('hex'))).toBe(true);
    }
  });

  it('has a DICOMDIR that dcmtk and dicom3tools read, and every file it references reads with dcmtk', async () => {
    if (!hasTool('dcmdump')) return;
    const dir = await mkdtemp(path.join(tmpdir(), 'export-media-'));
    try {
      for (const [name, data] of entries) {
        await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
        await writeFile(path.join(dir, name), data);
      }
      const dump = run('dcmdump', ['+M', 'DICOMDIR'], dir);
      expect(dump.status, dump.stderr).toBe(0);
      expect(dump.stderr).not.toMatch(/^[EW]:/m);
      const ids = [...dump.stdout.matchAll(/\(0004,1500\) CS \[([^\]]+)\]/g)].map((m) =>
        m[1]!.split('\\').join('/'),
      );
      const dicomFiles = [...entries.keys()].filter((n) => n.startsWith('DICOM/'));
      expect(ids.sort()).toEqual(dicomFiles.sort());
      expect(dump.stdout).toContain('MediaStorageDirectoryStorage');
      // The delivered report has the record of its kind (PS3.3 F.4), with the keys that kind needs.
      const types = [...dump.stdout.matchAll(/\(0004,1430\) CS \[([^\]]+)\]/g)].map((m) => m[1]!.trim());
      expect(new Set(types)).toEqual(
        new Set([
          'PATIENT',
          'STUDY',
          'SERIES',
          'IMAGE',
          'ENCAP DOC',
          ...(types.includes('SR DOCUMENT') ? ['SR DOCUMENT'] : []),
        ]),
      );
      expect(dump.stdout).toMatch(/\(0042,0012\) LO \[application\/pdf\]/);
      for (const id of ids) {
        const r = run('dcmdump', ['+M', id], dir);
        expect(r.status, `${id}: ${r.stderr}`).toBe(0);
        expect(r.stderr, id).not.toMatch(/^E:/m);
      }
      // dcmtk resolves every record offset when it re-reads the DICOMDIR to update it (a throwaway copy).
      const update = run('dcmmkdir', ['+U', '+r', '+I', 'DICOM'], dir);
      expect(update.stderr).not.toMatch(/Cannot resolve offset/);
      expect(update.stderr).not.toMatch(/^E:/m);
      if (hasTool('dciodvfy')) {
        await writeFile(path.join(dir, 'DICOMDIR'), entries.get('DICOMDIR')!);
        const v = run('dciodvfy', ['DICOMDIR'], dir);
        expect(`${v.stdout}${v.stderr}`).toContain('BasicDirectory');
        expect(`${v.stdout}${v.stderr}`).not.toMatch(/^Error/m);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('carries a FHIR R4 Bundle whose resources point at files inside the archive', () => {
    const bundle = JSON.parse(entries.get('FHIR/bundle.json')!.toString('utf8')) as Bundle;
    expect(fhirErrors(bundle)).toEqual([]);
    const types = (bundle.entry ?? []).map((e) => e.resource!.resourceType);
    for (const t of ['Patient', 'ImagingStudy', 'DiagnosticReport', 'DocumentReference', 'Endpoint'])
      expect(types).toContain(t);
    const endpoint = bundle.entry!.find((e) => e.resource!.resourceType === 'Endpoint')!.resource!;
    expect((endpoint as { address: string }).address).toBe('DICOMDIR');
    const studiesIn = bundle.entry!.filter((e) => e.resource!.resourceType === 'ImagingStudy');
    expect(studiesIn).toHaveLength(ownerStudies.length);
    for (const s of studiesIn)
      expect((s.resource as ImagingStudy).endpoint![0]!.reference).toBe('Endpoint/dicom-media');
    const doc = bundle.entry!.find((e) => e.resource!.resourceType === 'DocumentReference')!
      .resource as DocumentReference;
    const att = doc.content[0]!.attachment;
    const pdf = entries.get(att.url!)!;
    expect(pdf).toBeDefined();
    expect(att.size).toBe(pdf.length);
    expect(att.hash).toBe(createHash('sha1').update(pdf).digest('base64'));
  });

  it('lists the history as CSV and JSON, and an offline index.html with escaped values', () => {
    const orders = entries.get('HISTORY/orders.csv')!.toString('utf8');
    expect(orders.split('\r\n')[0]).toBe(
      'order_id,study_id,service,provider,status,cost_cents,ordered_at,paid_at,refunded_at,refund_reason',
    );
    expect(orders).toContain('Expert Review');
    const history = JSON.parse(entries.get('HISTORY/history.json')!.toString('utf8'));
    expect(history.orders).toHaveLength(1);
    expect(history.access.length).toBeGreaterThan(0);
    const html = entries.get('index.html')!.toString('utf8');
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script|https?:\/\//i);
    expect(html).toContain('href="DICOMDIR"');
    expect(html).toContain('REPORTS/RPT00001.PDF');
  });

  it('resumes a download with HTTP Range, and audits each request', async () => {
    const { files } = (await call(owner, 'GET', `/api/exports/${exportId}`)).json();
    const url = files[0].url as string;
    const part = await call(owner, 'GET', url, { headers: { ...owner.auth, range: 'bytes=100-1099' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-1099/${zip.length}`);
    expect(part.rawPayload.equals(zip.subarray(100, 1100))).toBe(true);
    const rest = await call(owner, 'GET', url, {
      headers: { ...owner.auth, range: 'bytes=1100-', 'if-range': part.headers.etag as string },
    });
    expect(rest.statusCode).toBe(206);
    expect(Buffer.concat([zip.subarray(0, 1100), rest.rawPayload]).equals(zip)).toBe(true);
    const tail = await call(owner, 'GET', url, { headers: { ...owner.auth, range: 'bytes=-22' } });
    expect(tail.rawPayload.equals(zip.subarray(zip.length - 22))).toBe(true);
    const stale = await call(owner, 'GET', url, {
      headers: { ...owner.auth, range: 'bytes=0-9', 'if-range': '"other"' },
    });
    expect(stale.statusCode).toBe(200);
    const beyond = await call(owner, 'GET', url, {
      headers: { ...owner.auth, range: `bytes=${zip.length}-` },
    });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${zip.length}`);
    const audited = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'export.download'), eq(auditEvents.targetId, exportId)));
    expect(audited.length).toBeGreaterThanOrEqual(5);
    expect(audited.some((a) => (a.details as { range?: string }).range === '100-1099')).toBe(true);
  });

  it('is never seen by anyone but its owner: a stranger, an admin and the reporting professional get 404', async () => {
    const { files } = (await call(owner, 'GET', `/api/exports/${exportId}`)).json();
    for (const who of [stranger, admin, pro]) {
      expect((await call(who, 'GET', `/api/exports/${exportId}`)).statusCode).toBe(404);
      expect((await call(who, 'GET', files[0].url)).statusCode).toBe(404);
      expect((await call(who, 'GET', '/api/exports')).json().exports).toEqual([]);
    }
    expect((await call(undefined, 'GET', files[0].url)).statusCode).toBe(401);
    expect((await call(owner, 'GET', '/api/exports/not-a-uuid')).statusCode).toBe(404);
    expect(
      (await call(owner, 'GET', '/api/exports')).json().exports.map((e: { id: string }) => e.id),
    ).toContain(exportId);
  });
});

describe('what an export may hold', () => {
  it('refuses a study the user does not own (404), an empty choice and a user without studies (400)', async () => {
    const foreign = await call(owner, 'POST', '/api/exports', { payload: { studyIds: [strangerStudy] } });
    expect(foreign.statusCode).toBe(404);
    const mixed = await call(owner, 'POST', '/api/exports', {
      payload: { studyIds: [ownerStudies[0], strangerStudy] },
    });
    expect(mixed.statusCode).toBe(404);
    const none = await call(owner, 'POST', '/api/exports', { payload: { studyIds: [] } });
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toMatch(/at least one study/);
    const empty = await call(admin, 'POST', '/api/exports', { payload: {} });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toMatch(/no studies to export/);
  });

  it("makes a disc image (ISO 9660) as well when asked: isoinfo, 7z and dcmtk read it, its files are the ZIP's", async () => {
    const res = await call(owner, 'POST', '/api/exports', { payload: { iso: true } });
    expect(res.statusCode, res.body).toBe(202);
    const done = await waitReady(owner, res.json().id);
    expect(done).toMatchObject({ status: 'ready', iso: true, progress: 100 });
    expect(done.files.map((f: { name: string }) => f.name)).toEqual([
      expect.stringMatching(/^medical-imaging-export-\d{4}-\d{2}-\d{2}\.zip$/),
      expect.stringMatching(/^medical-imaging-export-\d{4}-\d{2}-\d{2}\.iso$/),
    ]);
    const [zipFile, isoFile] = done.files as Array<{ name: string; size: number; url: string }>;
    const isoZip = await readZip((await call(owner, 'GET', zipFile!.url)).rawPayload);
    const dl = await call(owner, 'GET', isoFile!.url);
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-type']).toBe('application/x-iso9660-image');
    const image = dl.rawPayload;
    expect(image.length).toBe(isoFile!.size);
    expect(image.length % 2048).toBe(0);
    // Resumable like the ZIP.
    const part = await call(owner, 'GET', isoFile!.url, {
      headers: { ...owner.auth, range: 'bytes=32768-34815' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(image.subarray(32768, 34816))).toBe(true);
    expect(part.rawPayload.subarray(1, 6).toString('ascii')).toBe('CD001');

    // Every ZIP entry under its level-1 name (index.html's links follow the renamed files).
    const isoPath = (name: string) =>
      ({
        'index.html': 'INDEX.HTM',
        'FHIR/bundle.json': 'FHIR/BUNDLE.JSO',
        'HISTORY/shares.csv': 'HISTORY/SHARES.CSV',
        'HISTORY/links.csv': 'HISTORY/LINKS.CSV',
        'HISTORY/orders.csv': 'HISTORY/ORDERS.CSV',
        'HISTORY/access.csv': 'HISTORY/ACCESS.CSV',
        'HISTORY/history.json': 'HISTORY/HISTORY.JSO',
      })[name] ?? name;
    const dir = await mkdtemp(path.join(tmpdir(), 'export-iso-'));
    try {
      const isoAt = path.join(dir, 'export.iso');
      await writeFile(isoAt, image);
      if (!hasTool('isoinfo')) return;
      const d = run('isoinfo', ['-d', '-i', isoAt], dir);
      expect(d.status, d.stderr).toBe(0);
      expect(d.stdout).toContain('CD-ROM is in ISO 9660 format');
      expect(d.stdout).toMatch(/^Volume id: MI_EXPORT$/m);
      expect(d.stdout).toMatch(/^Logical block size is: 2048$/m);
      expect(d.stdout).toMatch(new RegExp(`^Volume size is: ${image.length / 2048}$`, 'm'));
      // isoinfo -l: every file, `NAME.EXT;1` (DICOM File IDs as `NAME.;1`, PS3.12 F.1.2.1), its size.
      const listing = run('isoinfo', ['-l', '-i', isoAt], dir);
      expect(listing.status, listing.stderr).toBe(0);
      const listed = new Map<string, number>();
      let where = '';
      for (const line of listing.stdout.split('\n')) {
        const head = /^Directory listing of (\/.*)$/.exec(line);
        if (head) where = head[1]!;
        const file = /^-\S+\s+\d+\s+\d+\s+\d+\s+(\d+) .*\]\s+(\S+);1 $/.exec(line);
        if (file) listed.set(`${where}${file[2]!.replace(/\.$/, '')}`.slice(1), Number(file[1]));
      }
      const expected = new Map(
        [...isoZip.entries()].map(([n, b]) => [isoPath(n), n === 'index.html' ? -1 : b.length]),
      );
      expect([...listed.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [n, size] of expected) if (size >= 0) expect(listed.get(n), n).toBe(size);
      // The DICOMDIR, byte for byte (PS3.12's `/DICOMDIR.;1`), and every file.
      const x = spawnSync('isoinfo', ['-x', '/DICOMDIR.;1', '-i', isoAt], { maxBuffer: 64 * 1024 * 1024 });
      expect(x.status).toBe(0);
      expect(Buffer.from(x.stdout).equals(isoZip.get('DICOMDIR')!)).toBe(true);
      for (const [name, bytes] of isoZip) {
        if (name === 'index.html') continue;
        const ident = isoPath(name).includes('.') ? `/${isoPath(name)};1` : `/${isoPath(name)}.;1`;
        const got = spawnSync('isoinfo', ['-x', ident, '-i', isoAt], { maxBuffer: 64 * 1024 * 1024 });
        expect(Buffer.from(got.stdout).equals(bytes), name).toBe(true);
      }
      const verify = run('isovfy', ['-i', isoAt], dir);
      expect(`${verify.stdout}${verify.stderr}`).toContain('No errors found');

      // dcmtk reads the DICOMDIR and the files it references, as extracted from the image.
      if (hasTool('dcmdump')) {
        const media = path.join(dir, 'media');
        await mkdir(media);
        for (const name of isoZip.keys()) {
          if (!name.startsWith('DICOM')) continue;
          const ident = `/${name}.;1`;
          const got = spawnSync('isoinfo', ['-x', ident, '-i', isoAt], { maxBuffer: 64 * 1024 * 1024 });
          await mkdir(path.dirname(path.join(media, name)), { recursive: true });
          await writeFile(path.join(media, name), got.stdout);
        }
        const dump = run('dcmdump', ['+M', 'DICOMDIR'], media);
        expect(dump.status, dump.stderr).toBe(0);
        expect(dump.stderr).not.toMatch(/^[EW]:/m);
        const ids = [...dump.stdout.matchAll(/\(0004,1500\) CS \[([^\]]+)\]/g)].map((m) =>
          m[1]!.split('\\').join('/'),
        );
        expect(ids.length).toBe([...isoZip.keys()].filter((n) => n.startsWith('DICOM/')).length);
        for (const id of ids) {
          const r = run('dcmdump', ['+M', id], media);
          expect(r.status, `${id}: ${r.stderr}`).toBe(0);
          expect(r.stderr, id).not.toMatch(/^E:/m);
        }
      }
      // 7-Zip, a second reader: the same files and bytes.
      if (hasTool('7z')) {
        const out = path.join(dir, '7z');
        const r = run('7z', ['x', '-y', `-o${out}`, isoAt], dir);
        expect(r.status, r.stdout + r.stderr).toBe(0);
        for (const [name, bytes] of isoZip) {
          const got = await readFile(path.join(out, isoPath(name)));
          if (name === 'index.html') {
            const html = got.toString('utf8');
            expect(html).toContain('href="FHIR/BUNDLE.JSO"');
            expect(html).toContain('href="REPORTS/RPT00001.PDF"');
            expect(html).not.toContain('href="FHIR/bundle.json"');
          } else expect(got.equals(bytes), name).toBe(true);
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('de-identifies with the PS3.15 engine: new UIDs, no name, a DICOMDIR dcmtk reads', async () => {
    const res = await call(owner, 'POST', '/api/exports', { payload: { deidentify: true } });
    expect(res.statusCode, res.body).toBe(202);
    const done = await waitReady(owner, res.json().id);
    expect(done).toMatchObject({ status: 'ready', deidentify: true });
    const files = await readZip((await call(owner, 'GET', done.files[0].url)).rawPayload);
    const dicom = [...files.entries()].filter(([n]) => n.startsWith('DICOM/'));
    expect(dicom.length).toBeGreaterThan(0);
    expect([...files.keys()].some((n) => /^(REPORTS|FHIR|HISTORY)\//.test(n))).toBe(false);
    const originals = new Set(
      (
        await db()
          .select({ sop: instances.sopInstanceUid })
          .from(instances)
          .innerJoin(studies, eq(studies.id, instances.studyId))
          .where(eq(studies.ownerId, owner.id))
      ).map((r) => r.sop),
    );
    for (const [name, bytes] of dicom) {
      const ds = dicomParser.parseDicom(new Uint8Array(bytes), { untilTag: 'x7fe00010' });
      expect(originals.has(ds.string('x00080018') ?? ''), name).toBe(false);
      expect(ds.string('x00100010') ?? '', name).not.toMatch(/Lovelace/);
      expect(ds.string('x00120062'), name).toBe('YES');
    }
    if (!hasTool('dcmdump')) return;
    const dir = await mkdtemp(path.join(tmpdir(), 'export-deid-'));
    try {
      for (const [name, data] of files) {
        await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
        await writeFile(path.join(dir, name), data);
      }
      const dump = run('dcmdump', ['+M', 'DICOMDIR'], dir);
      expect(dump.status, dump.stderr).toBe(0);
      expect(dump.stderr).not.toMatch(/^E:/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exports only the chosen studies', async () => {
    const res = await call(owner, 'POST', '/api/exports', { payload: { studyIds: [ownerStudies[0]] } });
    expect(res.statusCode, res.body).toBe(202);
    const done = await waitReady(owner, res.json().id);
    expect(done).toMatchObject({ status: 'ready', studyCount: 1 });
    const one = await readZip((await call(owner, 'GET', done.files[0].url)).rawPayload);
    const dirs = new Set([...one.keys()].filter((n) => n.startsWith('DICOM/')).map((n) => n.split('/')[1]));
    expect([...dirs]).toEqual(['ST000001']);
  });
});

describe('re-importing an export', () => {
  it('re-creates the same studies: same SOP Instance UIDs and pixel data', async () => {
    const newcomer = await newPatient(ctx, 'export-reimport@example.com');
    const { upload } = await uploadAndProcess(ctx, baseUrl, newcomer, zip);
    expect(upload.status, JSON.stringify(upload.summary)).toBe('completed');
    const hashesOf = async (ownerId: string) => {
      const rows = await db()
        .select()
        .from(instances)
        .innerJoin(studies, eq(studies.id, instances.studyId))
        .where(eq(studies.ownerId, ownerId));
      const out = new Map<string, string | null>();
      for (const r of rows)
        out.set(r.instances.sopInstanceUid, pixelHash(await readInstance(ctx.services.storage, r.instances)));
      return out;
    };
    const original = await hashesOf(owner.id);
    const reimported = await hashesOf(newcomer.id);
    expect([...reimported.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [sop, hash] of original) expect(reimported.get(sop), sop).toBe(hash);
    const studyUids = async (ownerId: string) =>
      (await db().select({ uid: studies.studyInstanceUid }).from(studies).where(eq(studies.ownerId, ownerId)))
        .map((s) => s.uid)
        .sort();
    expect(await studyUids(newcomer.id)).toEqual(await studyUids(owner.id));
  });

  it('imports into Orthanc', async () => {
    if (!orthancAvailable) return;
    const orthanc = await startOrthanc();
    try {
      const dicom = [...entries.entries()].filter(([n]) => n.startsWith('DICOM/'));
      for (const [name, data] of dicom) {
        const res = await fetch(`${orthanc.url}/instances`, { method: 'POST', body: data });
        expect(res.status, name).toBe(200);
      }
      const ids = (await (await fetch(`${orthanc.url}/instances`)).json()) as string[];
      expect(ids).toHaveLength(dicom.length);
    } finally {
      await orthanc.stop();
    }
  }, 60_000);
});

describe('a de-identified export', () => {
  it('passes every file through the injected de-identifier and leaves out reports, FHIR and history', async () => {
    const seen: string[] = [];
    const deidentify: Deidentifier = async function* (files, copy) {
      expect(copy.ownerId).toBe(owner.id);
      let n = 0;
      for await (const f of files) {
        seen.push(f.sopInstanceUid);
        // Every other file is left out, as the engine does for burned-in annotation.
        yield n++ % 2 === 0 ? { bytes: f.bytes } : { leftOut: 'burned-in annotation' };
      }
    };
    const s = ctx.services;
    const service = createExportsService({
      repo: createExportsRepository(s.database.db),
      storage: s.storage,
      access: s.access,
      audit: s.audit,
      queue: { send: async () => null },
      notify: async () => undefined,
      bundle: (p, o, m) => s.fhir.exportBundle(p, o, m),
      deidentify,
      now: () => clock,
    });
    const session = {
      user: { id: owner.id, role: 'patient', accountStatus: 'active' },
    } as AuthenticatedSession;
    const meta = { requestId: 'deid-test', ip: '127.0.0.1' };
    const { id } = await service.create(session, { studyIds: [ctStudyId], deidentify: true }, meta);
    await service.build(id, s.log);
    const done = await service.get(session, id);
    expect(done).toMatchObject({ status: 'ready', deidentify: true });
    const [row] = await db().select().from(dataExports).where(eq(dataExports.id, id));
    const chunks: Buffer[] = [];
    for await (const c of await s.storage.get(row!.files[0]!.storageKey)) chunks.push(c as Buffer);
    const files = await readZip(Buffer.concat(chunks));
    const names = [...files.keys()];
    expect(names.filter((n) => n.startsWith('DICOM/'))).toHaveLength(Math.ceil(seen.length / 2));
    expect(names.some((n) => /^(REPORTS|FHIR|HISTORY)\//.test(n))).toBe(false);
    expect(files.get('index.html')!.toString()).toContain('burned-in annotation');
    expect(files.has('DICOMDIR')).toBe(true);
  });
});

describe('one at a time, 7 days, then gone', () => {
  it('allows one running export per user; a build that stopped long ago no longer blocks', async () => {
    const [running] = await db()
      .insert(dataExports)
      .values({
        ownerId: stranger.id,
        studyIds: [strangerStudy],
        status: 'building',
        updatedAt: clock,
        createdAt: clock,
      })
      .returning();
    const second = await call(stranger, 'POST', '/api/exports', { payload: {} });
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toMatch(/already being prepared/);
    clock = new Date(clock.getTime() + 31 * 60 * 1000);
    const later = await call(stranger, 'POST', '/api/exports', { payload: {} });
    expect(later.statusCode, later.body).toBe(202);
    const stopped = (await call(stranger, 'GET', `/api/exports/${running!.id}`)).json();
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toMatch(/stopped before it finished/);
    await waitReady(stranger, later.json().id);
  });

  it('expires 7 days after it is ready: its files are deleted and its link answers 404', async () => {
    const before = (await call(owner, 'GET', `/api/exports/${exportId}`)).json();
    const [row] = await db().select().from(dataExports).where(eq(dataExports.id, exportId));
    const key = row!.files[0]!.storageKey;
    expect(await ctx.services.storage.stat(key)).not.toBeNull();
    clock = new Date(new Date(before.expiresAt).getTime() - 1000);
    expect((await call(owner, 'GET', `/api/exports/${exportId}`)).json().status).toBe('ready');
    clock = new Date(new Date(before.expiresAt).getTime() + 1000);
    // The periodic clean-up reclaims the space (reading it would expire it too).
    const job = ctx.services.jobs.find((j) => j.name === 'expire-exports')!;
    await job.handler({}, { jobId: 'test', log: ctx.services.log });
    expect(await ctx.services.storage.stat(key)).toBeNull();
    const after = (await call(owner, 'GET', `/api/exports/${exportId}`)).json();
    expect(after).toMatchObject({ status: 'expired', files: [] });
    expect((await call(owner, 'GET', before.files[0].url)).statusCode).toBe(404);
  });
});

// Keeps the fixture read path honest: the CT fixture is in the export unchanged.
it('keeps a fixture byte for byte', async () => {
  const fixture = await readFile(`${FIXTURES}/CT_small.dcm`);
  expect([...entries.values()].some((b) => b.equals(fixture))).toBe(true);
});
