import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViewerApp } from '../../../src/modules/viewer/viewer-app';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { generateSeries, type GeneratedSeries } from '../../helpers/dicom-series';
import { orthancAvailable, startOrthanc, type Orthanc } from '../../helpers/orthanc';
import { createTestContext, eventually, registerPatient, type TestContext } from '../../helpers/test-app';

const require = createRequire(import.meta.url);

interface DicomwebClient {
  searchForStudies(opts?: {
    queryParams?: Record<string, string>;
  }): Promise<Array<Record<string, { Value?: unknown[] }>>>;
  retrieveSeriesMetadata(opts: {
    studyInstanceUID: string;
    seriesInstanceUID: string;
  }): Promise<Array<Record<string, { Value?: unknown[] }>>>;
  retrieveInstanceFrames(opts: {
    studyInstanceUID: string;
    seriesInstanceUID: string;
    sopInstanceUID: string;
    frameNumbers: number[];
  }): Promise<ArrayBuffer[]>;
  retrieveInstance(opts: {
    studyInstanceUID: string;
    seriesInstanceUID: string;
    sopInstanceUID: string;
  }): Promise<ArrayBuffer>;
  retrieveStudy(opts: { studyInstanceUID: string }): Promise<ArrayBuffer[]>;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

async function loginAndIngest(ctx: TestContext, email: string, series: GeneratedSeries) {
  const data = (await registerPatient(ctx, email)).json().data as { id: string; authToken: string };
  const [studyId] = await ingestFiles(
    ctx,
    data.id,
    series.files.map((f) => f.bytes),
  );
  return { userId: data.id, token: data.authToken, studyId: studyId! };
}

describe('standard DICOMweb clients against our server', () => {
  let ctx: TestContext;
  let base: string;
  let user: { userId: string; token: string; studyId: string };
  const series = generateSeries({ count: 4, size: 64 });

  beforeAll(async () => {
    ctx = await createTestContext();
    base = await listen(ctx.app);
    user = await loginAndIngest(ctx, 'client@example.com', series);
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
  });

  it('the dicomweb-client npm package searches, reads metadata and frames, and retrieves the study byte-identical', async () => {
    (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest ??= require('xhr2');
    const { api } = require('dicomweb-client') as {
      api: { DICOMwebClient: new (o: unknown) => DicomwebClient };
    };
    const client = new api.DICOMwebClient({
      url: `${base}/dicomweb`,
      headers: { Authorization: `Bearer ${user.token}` },
    });

    const studies = await client.searchForStudies({ queryParams: { PatientName: 'Phantom*' } });
    expect(studies.map((s) => s['0020000D']?.Value?.[0])).toEqual([series.studyInstanceUid]);

    const meta = await client.retrieveSeriesMetadata({
      studyInstanceUID: series.studyInstanceUid,
      seriesInstanceUID: series.seriesInstanceUid,
    });
    expect(meta).toHaveLength(4);

    const sop = series.files[2]!;
    const [frame] = await client.retrieveInstanceFrames({
      studyInstanceUID: series.studyInstanceUid,
      seriesInstanceUID: series.seriesInstanceUid,
      sopInstanceUID: sop.sopInstanceUid,
      frameNumbers: [1],
    });
    expect(frame!.byteLength).toBe(64 * 64 * 2);

    const instance = await client.retrieveInstance({
      studyInstanceUID: series.studyInstanceUid,
      seriesInstanceUID: series.seriesInstanceUid,
      sopInstanceUID: sop.sopInstanceUid,
    });
    expect(Buffer.from(instance).equals(sop.bytes)).toBe(true);

    const all = await client.retrieveStudy({ studyInstanceUID: series.studyInstanceUid });
    const got = all.map((b) => Buffer.from(b).toString('base64')).sort();
    expect(got).toEqual(series.files.map((f) => f.bytes.toString('base64')).sort());
  });

  it.skipIf(!orthancAvailable)(
    'Orthanc, with our server as a remote DICOMweb server, retrieves a whole study byte-identical',
    async () => {
      const orthanc = await startOrthanc({
        ours: { Url: `${base}/dicomweb/`, HttpHeaders: { Authorization: `Bearer ${user.token}` } },
      });
      try {
        const res = await fetch(`${orthanc.url}/dicom-web/servers/ours/retrieve`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ Resources: [{ Study: series.studyInstanceUid }], Synchronous: true }),
        });
        expect(res.status).toBe(200);
        const ids = await eventually(async () => {
          const list = (await (await fetch(`${orthanc.url}/instances`)).json()) as string[];
          return list.length === series.files.length ? list : null;
        });
        const stored = new Set(series.files.map((f) => f.bytes.toString('base64')));
        for (const id of ids) {
          const file = Buffer.from(await (await fetch(`${orthanc.url}/instances/${id}/file`)).arrayBuffer());
          expect(stored.has(file.toString('base64'))).toBe(true);
        }
      } finally {
        await orthanc.stop();
      }
    },
    60_000,
  );
});

describe.skipIf(!orthancAvailable)('external DICOMweb store (DICOMWEB_URL) on Orthanc', () => {
  let orthanc: Orthanc;
  let ctx: TestContext;
  let viewerApp: FastifyInstance;
  const series = generateSeries({ count: 3, size: 64 });
  let user: { userId: string; token: string; studyId: string };

  beforeAll(async () => {
    orthanc = await startOrthanc();
    ctx = await createTestContext({ DICOMWEB_URL: orthanc.dicomweb });
    viewerApp = await buildViewerApp(ctx.services, { logRequests: false });
    user = await loginAndIngest(ctx, 'external@example.com', series);
  }, 60_000);
  afterAll(async () => {
    await viewerApp?.close();
    await ctx?.close();
    await orthanc?.stop();
  });

  it('preparation pushes the study with STOW-RS, and the viewer reads it through our access-checked proxy', async () => {
    const headers = { authorization: `Bearer ${user.token}` };
    const queued = await ctx.app.inject({
      method: 'POST',
      url: `/api/studies/transfer/${user.studyId}`,
      headers,
    });
    expect(queued.statusCode).toBe(202);
    await eventually(async () => {
      const s = await ctx.app.inject({ url: `/api/studies/study/${user.studyId}`, headers });
      return s.json().data.status.transfer.value === 'completed';
    }, 30_000);
    const inOrthanc = (await (await fetch(`${orthanc.url}/instances`)).json()) as string[];
    expect(inOrthanc).toHaveLength(3);

    const { url } = (await ctx.app.inject({ url: `/api/dicom/viewer/${user.studyId}`, headers })).json() as {
      url: string;
    };
    const token = { authorization: `Bearer ${new URL(url).hash.replace('#grant=', '')}` };
    const bind = await viewerApp.inject({ method: 'POST', url: '/dicomweb/session', headers: token });
    const grant = { ...token, cookie: `${bind.cookies[0]!.name}=${bind.cookies[0]!.value}` };
    const metaUrl = `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/metadata`;
    const meta = await viewerApp.inject({ url: metaUrl, headers: grant });
    expect(meta.statusCode).toBe(200);
    const text = meta.body;
    expect(text).not.toContain(orthanc.url);
    expect(JSON.parse(text)).toHaveLength(3);

    const sop = series.files[0]!.sopInstanceUid;
    const frame = await viewerApp.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${sop}/frames/1`,
      headers: { ...grant, accept: 'multipart/related; type="application/octet-stream"; transfer-syntax=*' },
    });
    expect(frame.statusCode).toBe(200);
    expect(frame.rawPayload.length).toBeGreaterThan(64 * 64 * 2);

    // The same access check as the built-in store: no credential, no data, and each read is audited.
    expect((await viewerApp.inject({ url: metaUrl })).statusCode).toBe(401);
    const audits = await ctx.services.database.sql.executeSql(
      "select count(*)::int as n from audit_events where action = 'dicomweb.forward' and outcome = 'success'",
      [],
    );
    expect((audits.rows[0] as { n: number }).n).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('a later upload that adds instances undoes the preparation, and preparing again pushes the rest', async () => {
    const headers = { authorization: `Bearer ${user.token}` };
    const status = async () =>
      (await ctx.app.inject({ url: `/api/studies/study/${user.studyId}`, headers })).json().data.status
        .transfer.value as string | null;
    const prepare = async () => {
      const queued = await ctx.app.inject({
        method: 'POST',
        url: `/api/studies/transfer/${user.studyId}`,
        headers,
      });
      expect(queued.statusCode).toBe(202);
      await eventually(async () => (await status()) === 'completed', 30_000);
    };
    if ((await status()) !== 'completed') await prepare();

    // The same study uploaded again, with two more series.
    const more = generateSeries({
      count: 2,
      size: 64,
      studyInstanceUid: series.studyInstanceUid,
      seriesNumber: 2,
    });
    const extra = generateSeries({
      count: 1,
      size: 64,
      studyInstanceUid: series.studyInstanceUid,
      seriesNumber: 3,
    });
    const [again] = await ingestFiles(ctx, user.userId, [
      ...series.files.map((f) => f.bytes),
      ...more.files.map((f) => f.bytes),
      ...extra.files.map((f) => f.bytes),
    ]);
    expect(again).toBe(user.studyId);
    // No longer prepared: the viewer flow queues preparation before opening it.
    expect(await status()).toBeNull();
    await prepare();

    const studyInOrthanc = (await (
      await fetch(`${orthanc.dicomweb}/studies/${series.studyInstanceUid}/instances`)
    ).json()) as unknown[];
    expect(studyInOrthanc).toHaveLength(3 + 2 + 1);

    // The viewer reads the new series through the proxy.
    const { url } = (await ctx.app.inject({ url: `/api/dicom/viewer/${user.studyId}`, headers })).json() as {
      url: string;
    };
    const token = { authorization: `Bearer ${new URL(url).hash.replace('#grant=', '')}` };
    const bind = await viewerApp.inject({ method: 'POST', url: '/dicomweb/session', headers: token });
    const grant = { ...token, cookie: `${bind.cookies[0]!.name}=${bind.cookies[0]!.value}` };
    const meta = await viewerApp.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/series/${more.seriesInstanceUid}/metadata`,
      headers: grant,
    });
    expect(meta.statusCode).toBe(200);
    expect(JSON.parse(meta.body)).toHaveLength(2);

    // Re-uploading what is already there changes nothing: the study stays prepared.
    await ingestFiles(
      ctx,
      user.userId,
      more.files.map((f) => f.bytes),
    );
    expect(await status()).toBe('completed');
  }, 90_000);
});
