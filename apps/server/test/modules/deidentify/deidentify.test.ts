import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDataSet } from '../../../src/dicom/data-set';
import { notifications, studies, studyShares, users } from '../../../src/db/schema/index';
import type { JobDefinition } from '../../../src/jobs/queue';
import {
  buildZip,
  jobSettled,
  listen,
  makeDicom,
  newPatient,
  readZip,
  uid,
  uploadAndProcess,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let base: string;
let ada: Patient;
let bob: Patient;
let studyId: string;

const studyUid = uid();
const ctSeries = uid();

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-deid@example.com');
  bob = await newPatient(ctx, 'bob-deid@example.com');
  const files = [1, 2].map((n) =>
    makeDicom({
      studyUid,
      seriesUid: ctSeries,
      sopUid: uid(),
      instanceNumber: n,
      patientName: 'Lovelace^Ada',
      studyDescription: 'Head CT',
      studyDate: '20240315',
    }),
  );
  // An ultrasound image without Burned In Annotation: left out of every copy.
  files.push(
    makeDicom({ studyUid, seriesUid: uid(), sopUid: uid(), modality: 'US', patientName: 'Lovelace^Ada' }),
  );
  const zip = buildZip(files.map((data, i) => ({ name: `f${i}.dcm`, data, method: 'store' as const })));
  const { upload } = await uploadAndProcess(ctx, base, ada, zip);
  expect(upload.status).toBe('completed');
  studyId = upload.studyIds![0]!;
});
afterAll(async () => {
  await ctx?.close();
});

const list = async (p: Patient) =>
  (await ctx.app.inject({ method: 'GET', url: `/api/studies/user/${p.id}`, headers: p.auth })).json()
    .data as Array<{
    id: string;
    deidentified?: boolean;
    metadata: { patientName: string | null };
  }>;
const usedBytes = async (p: Patient) =>
  (await ctx.services.database.db.select().from(users).where(eq(users.id, p.id)))[0]!.usedStorageBytes;

describe('de-identification preview', () => {
  it('shows the owner each identifying attribute before and after, and what will be left out', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/${studyId}/deidentify/preview`,
      headers: ada.auth,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.edition).toMatch(/^DICOM PS3\.15 \d{4}[a-e]$/);
    expect(body.instanceCount).toBe(3);
    const byTag = new Map(
      (body.sample.changes as Array<{ tag: string; kind: string; before: string; after: string }>).map(
        (c) => [c.tag, c],
      ),
    );
    expect(byTag.get('(0010,0010)')).toMatchObject({ kind: 'emptied', before: 'Lovelace^Ada', after: '' });
    expect(byTag.get('(0008,0020)')).toMatchObject({ kind: 'shifted', before: '20240315' });
    expect(byTag.get('(0008,0020)')!.after).not.toBe('20240315');
    expect(byTag.get('(0020,000D)')).toMatchObject({ kind: 'replaced', before: studyUid });
    expect(body.leftOut).toEqual([
      expect.objectContaining({
        modality: 'US',
        code: 'pixel-data-risk',
        reason: expect.stringMatching(/ultrasound/),
      }),
    ]);
  });

  it('is a 404 for anyone but the owner, and for a study that does not exist', async () => {
    for (const [who, id] of [
      [bob, studyId],
      [ada, '00000000-0000-4000-8000-000000000000'],
      [ada, 'not-an-id'],
    ] as const) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/api/studies/${id}/deidentify/preview`,
        headers: who.auth,
      });
      expect(res.statusCode).toBe(404);
    }
    const anon = await ctx.app.inject({ method: 'GET', url: `/api/studies/${studyId}/deidentify/preview` });
    expect(anon.statusCode).toBe(401);
  });
});

describe('de-identified copy', () => {
  it('refuses anyone but the owner with a 404', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/studies/${studyId}/deidentified-copy`,
      headers: bob.auth,
      payload: {},
    });
    expect(res.statusCode).toBe(404);
  });

  it('makes a new study in the owner’s list, marked de-identified, counted against their storage; a rerun changes nothing', async () => {
    const before = await usedBytes(ada);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/studies/${studyId}/deidentified-copy`,
      headers: ada.auth,
      payload: {},
    });
    expect(res.statusCode).toBe(202);
    const { jobId } = res.json() as { jobId: string };
    await jobSettled(ctx, jobId);
    const rows = await list(ada);
    const copy = rows.find((r) => r.deidentified);
    expect(copy).toBeDefined();
    expect(rows.find((r) => r.id === studyId)?.deidentified).toBeUndefined();
    expect(copy!.metadata.patientName ?? '').toBe('');
    const [row] = await ctx.services.database.db.select().from(studies).where(eq(studies.id, copy!.id));
    expect(row!.instanceCount).toBe(2);
    expect(row!.studyInstanceUid).not.toBe(studyUid);
    expect(row!.studyInstanceUid).toMatch(/^2\.25\./);
    const summary = row!.deidentification as { leftOut: unknown[]; sourceStudyId: string; edition: string };
    expect(summary.sourceStudyId).toBe(studyId);
    expect(summary.leftOut).toHaveLength(1);
    const after = await usedBytes(ada);
    expect(after - before).toBe(row!.sizeBytes);

    // The job again with the same payload (a retry): the same copy, charged once.
    const job = ctx.services.jobs.find((j) => j.name === 'deidentified-copy') as JobDefinition;
    await job.handler(
      { userId: ada.id, studyId, copyId: jobId, includePdfReports: false },
      { jobId, log: ctx.services.log },
    );
    expect((await list(ada)).filter((r) => r.deidentified)).toHaveLength(1);
    expect(await usedBytes(ada)).toBe(after);
    // A study Ada no longer owns (or never did) is not copied by a job either.
    await job.handler(
      { userId: bob.id, studyId, copyId: '00000000-0000-4000-8000-000000000001', includePdfReports: false },
      { jobId: 'x', log: ctx.services.log },
    );
    expect((await list(bob)).length).toBe(0);
  });
});

describe('a de-identified copy', () => {
  it('is not copied or downloaded de-identified again, but shared as it is', async () => {
    const copy = (await list(ada)).find((r) => r.deidentified)!;
    expect(copy).toBeDefined();
    const again = await ctx.app.inject({
      method: 'POST',
      url: `/api/studies/${copy.id}/deidentified-copy`,
      headers: ada.auth,
      payload: {},
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatch(/already a de-identified copy/);
    const download = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/download/${copy.id}?deidentified=1`,
      headers: ada.auth,
    });
    expect(download.statusCode).toBe(409);
    // Shared de-identified, it is shared as it is: no copy of the copy.
    const consent = await ctx.app.inject({
      method: 'PUT',
      url: `/api/users/${ada.id}`,
      headers: ada.auth,
      payload: { shareMedicalData: true },
    });
    expect(consent.statusCode).toBe(200);
    const shared = await ctx.app.inject({
      method: 'POST',
      url: '/api/users/shares',
      headers: ada.auth,
      payload: { email: 'copy-reader@example.com', studyId: copy.id, deidentified: true },
    });
    expect(shared.statusCode).toBe(201);
    expect(shared.json().data.study._id).toBe(copy.id);
    expect((await list(ada)).filter((r) => r.deidentified)).toHaveLength(1);
  });
});

describe('download de-identified', () => {
  it('streams the de-identified files as a ZIP, naming what was left out', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/download/${studyId}?deidentified=1`,
      headers: ada.auth,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const files = await readZip(res.rawPayload);
    const dicoms = [...files.keys()].filter((n) => n.endsWith('.dcm'));
    expect(dicoms).toHaveLength(2);
    expect(files.get('LEFT-OUT.txt')?.toString()).toMatch(/ultrasound/);
    for (const name of dicoms) {
      const ds = readDataSet(files.get(name)!);
      expect(ds.string('x00100010') ?? '').toBe('');
      expect(ds.string('x00120062')).toBe('YES');
      expect(ds.string('x0020000d')).not.toBe(studyUid);
      expect(files.get(name)!.includes(Buffer.from('Lovelace'))).toBe(false);
    }
    const original = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/download/${studyId}`,
      headers: ada.auth,
    });
    expect(original.statusCode).toBe(200);
    expect((await readZip(original.rawPayload)).size).toBe(3);
  });

  it('is a 404 for anyone but the owner', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/download/${studyId}?deidentified=1`,
      headers: bob.auth,
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('share and link de-identified', () => {
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) =>
    ctx.app.inject({ method, url, headers: ada.auth, ...(payload ? { payload } : {}) });
  const copiesOf = async (source: string) =>
    (await ctx.services.database.db.select().from(studies).where(eq(studies.deidentified, true))).filter(
      (s) => (s.deidentification as { sourceStudyId?: string }).sourceStudyId === source,
    );
  let second: string;

  beforeAll(async () => {
    expect((await call('PUT', `/api/users/${ada.id}`, { shareMedicalData: true })).statusCode).toBe(200);
    const secondUid = uid();
    const series = uid();
    const files = [1, 2].map((n) =>
      makeDicom({
        studyUid: secondUid,
        seriesUid: series,
        sopUid: uid(),
        instanceNumber: n,
        patientName: 'Lovelace^Ada',
      }),
    );
    const zip = buildZip(files.map((data, i) => ({ name: `s${i}.dcm`, data, method: 'store' as const })));
    second = (await uploadAndProcess(ctx, base, ada, zip)).upload.studyIds![0]!;
  });

  it('shares a copy made first, never the original; a second share reuses that copy at once', async () => {
    const res = await call('POST', '/api/users/shares', {
      email: 'researcher@example.com',
      studyId: second,
      deidentified: true,
    });
    expect(res.statusCode).toBe(202);
    const body = res.json() as { pending: boolean; jobId: string; message: string };
    expect(body).toMatchObject({ pending: true, message: expect.stringMatching(/de-identified copy/) });
    await jobSettled(ctx, body.jobId);
    const [copy] = await copiesOf(second);
    expect(copy).toBeDefined();
    const shares = await ctx.services.database.db
      .select()
      .from(studyShares)
      .where(eq(studyShares.emailNormalized, 'researcher@example.com'));
    expect(shares.map((s) => s.studyId)).toEqual([copy!.id]);

    const again = await call('POST', '/api/users/shares', {
      email: 'second-opinion@example.com',
      studyId: second,
      deidentified: true,
    });
    expect(again.statusCode).toBe(201);
    expect(again.json().message).toMatch(/de-identified copy of your study/);
    expect(again.json().data.study._id).toBe(copy!.id);
    expect(await copiesOf(second)).toHaveLength(1);
  });

  it('refuses a stranger with 404 and sharing with oneself before any copy is made', async () => {
    const stranger = await ctx.app.inject({
      method: 'POST',
      url: '/api/users/shares',
      headers: bob.auth,
      payload: { email: 'x@example.com', studyId: second, deidentified: true },
    });
    expect(stranger.statusCode).toBe(404);
    const self = await call('POST', '/api/users/shares', {
      email: 'ada-deid@example.com',
      studyId: studyId,
      deidentified: true,
    });
    expect(self.statusCode).toBe(400);
  });

  it('makes a link to the copies once they exist, and tells the owner', async () => {
    const third = (
      await uploadAndProcess(
        ctx,
        base,
        ada,
        buildZip([
          {
            name: 'a.dcm',
            data: makeDicom({
              studyUid: uid(),
              seriesUid: uid(),
              sopUid: uid(),
              patientName: 'Lovelace^Ada',
            }),
            method: 'store' as const,
          },
        ]),
      )
    ).upload.studyIds![0]!;
    const expiresAt = new Date(Date.now() + 60 * 60_000).toISOString();
    const res = await call('POST', '/api/studies/links', {
      studyIds: [second, third],
      expiresAt,
      label: 'For the trial',
      deidentified: true,
    });
    expect(res.statusCode).toBe(202);
    const { jobId } = res.json() as { jobId: string };
    await jobSettled(ctx, jobId);
    const copies = [(await copiesOf(second))[0]!.id, (await copiesOf(third))[0]!.id];
    expect(await copiesOf(second)).toHaveLength(1);
    const links = (await call('GET', '/api/studies/links')).json().links as Array<{
      label: string;
      studies: Array<{ id: string }>;
    }>;
    const link = links.find((l) => l.label === 'For the trial');
    expect(link?.studies.map((s) => s.id).sort()).toEqual([...copies].sort());
    const notes = await ctx.services.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.userId, ada.id));
    expect(notes.some((n) => n.title === 'Your de-identified link is ready')).toBe(true);

    // Both copies exist now: the next de-identified link is made at once, on the same copies.
    const now = await call('POST', '/api/studies/links', {
      studyIds: [third, second],
      expiresAt,
      deidentified: true,
    });
    expect(now.statusCode).toBe(201);
    expect((now.json().link.studies as Array<{ id: string }>).map((s) => s.id).sort()).toEqual(
      [...copies].sort(),
    );
  });
});
