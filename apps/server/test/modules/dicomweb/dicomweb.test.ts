import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import dicomParser from 'dicom-parser';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViewerApp } from '../../../src/modules/viewer/viewer-app';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { generateSeries, squareOf, type GeneratedSeries } from '../../helpers/dicom-series';
import { createTestContext, eventually, registerPatient, type TestContext } from '../../helpers/test-app';

const FIXTURES = path.resolve(__dirname, '../../../../../../shared/fixtures/dicom/pydicom');
const fixture = (name: string) => path.join(FIXTURES, name);

/** Splits a multipart/related body into its parts (headers and bytes). */
function parseMultipart(
  body: Buffer,
  contentType: string,
): Array<{ headers: Record<string, string>; body: Buffer }> {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Array<{ headers: Record<string, string>; body: Buffer }> = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd);
    const headers: Record<string, string> = {};
    for (const line of body
      .subarray(start + 2, headerEnd)
      .toString('latin1')
      .split('\r\n')) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    parts.push({ headers, body: body.subarray(headerEnd + 4, next) });
    at = next + 2;
  }
  return parts;
}

describe('DICOMweb over stored studies', () => {
  let ctx: TestContext;
  let viewerApp: FastifyInstance;
  let owner: { id: string; token: string };
  let stranger: { id: string; token: string };
  let series: GeneratedSeries;
  let studyId: string;
  let mrStudyId: string;
  const auth = (u: { token: string }) => ({ authorization: `Bearer ${u.token}` });

  beforeAll(async () => {
    ctx = await createTestContext();
    viewerApp = await buildViewerApp(ctx.services, { logRequests: false });
    const reg = async (email: string) => {
      const data = (await registerPatient(ctx, email)).json().data;
      return { id: data.id as string, token: data.authToken as string };
    };
    owner = await reg('owner@example.com');
    stranger = await reg('stranger@example.com');
    series = generateSeries({ count: 5, size: 64 });
    studyId = (
      await ingestFiles(
        ctx,
        owner.id,
        series.files.map((f) => f.bytes),
      )
    )[0]!;
    mrStudyId = (await ingestFiles(ctx, owner.id, [fixture('MR_small.dcm')]))[0]!;
    await ingestFiles(ctx, owner.id, [fixture('JPEG2000.dcm'), fixture('SC_rgb_jpeg_dcmtk.dcm')]);
  }, 60_000);
  afterAll(async () => {
    await viewerApp?.close();
    await ctx?.close();
  });

  it('QIDO-RS finds only the caller’s studies, with matching, wildcards, includefield and paging', async () => {
    const all = await ctx.app.inject({ url: '/dicomweb/studies', headers: auth(owner) });
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-type']).toContain('application/dicom+json');
    expect(all.json().length).toBeGreaterThanOrEqual(3);

    const none = await ctx.app.inject({ url: '/dicomweb/studies', headers: auth(stranger) });
    expect(none.json()).toEqual([]);

    const byUid = await ctx.app.inject({
      url: `/dicomweb/studies?StudyInstanceUID=${series.studyInstanceUid}`,
      headers: auth(owner),
    });
    expect(byUid.json()).toHaveLength(1);
    expect(byUid.json()[0]['0020000D'].Value).toEqual([series.studyInstanceUid]);
    expect(byUid.json()[0]['00201208'].Value).toEqual([5]);

    const wildcard = await ctx.app.inject({
      url: '/dicomweb/studies?PatientName=phan*',
      headers: auth(owner),
    });
    expect(wildcard.json().map((s: Record<string, { Value: string[] }>) => s['0020000D']!.Value[0])).toEqual([
      series.studyInstanceUid,
    ]);
    const fuzzy = await ctx.app.inject({
      url: '/dicomweb/studies?PatientName=squ&fuzzymatching=true',
      headers: auth(owner),
    });
    expect(fuzzy.json()).toHaveLength(1);
    const dates = await ctx.app.inject({
      url: '/dicomweb/studies?StudyDate=20240101-20240131',
      headers: auth(owner),
    });
    expect(dates.json().map((s: Record<string, { Value: string[] }>) => s['0020000D']!.Value[0])).toContain(
      series.studyInstanceUid,
    );
    const modality = await ctx.app.inject({
      url: '/dicomweb/studies?ModalitiesInStudy=CT&includefield=00080080,StudyDescription',
      headers: auth(owner),
    });
    expect(modality.json().some((s: Record<string, unknown>) => '00080080' in s)).toBe(true);

    const page1 = await ctx.app.inject({ url: '/dicomweb/studies?limit=1&offset=0', headers: auth(owner) });
    const page2 = await ctx.app.inject({ url: '/dicomweb/studies?limit=1&offset=1', headers: auth(owner) });
    expect(page1.json()).toHaveLength(1);
    expect(page2.json()).toHaveLength(1);
    expect(page1.json()[0]['0020000D']).not.toEqual(page2.json()[0]['0020000D']);

    const instances = await ctx.app.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances?includefield=Rows&includefield=Columns`,
      headers: auth(owner),
    });
    expect(instances.statusCode).toBe(200);
    expect(instances.json()).toHaveLength(5);
    expect(instances.json()[0]['00280010'].Value).toEqual([64]);
    const seriesList = await ctx.app.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/series`,
      headers: auth(owner),
    });
    expect(seriesList.json()[0]['0020000E'].Value).toEqual([series.seriesInstanceUid]);
  });

  it('answers 400 to malformed parameters, 404 to malformed, unknown or other users’ study UIDs, 401 without credentials', async () => {
    const cases: Array<[string, number, { token: string } | null]> = [
      ['/dicomweb/studies?limit=abc', 400, owner],
      ['/dicomweb/studies?offset=-1', 400, owner],
      ['/dicomweb/studies?NotAnAttribute=1', 400, owner],
      ['/dicomweb/studies?StudyInstanceUID=1..2', 400, owner],
      ['/dicomweb/studies?StudyDate=2024-01', 400, owner],
      ['/dicomweb/studies?fuzzymatching=maybe', 400, owner],
      // A malformed study UID gets the 404 an unknown one gets: a stranger learns nothing either way.
      ['/dicomweb/studies/not-a-uid/metadata', 404, owner],
      [`/dicomweb/studies/${series.studyInstanceUid}/series/abc/metadata`, 400, owner],
      ['/dicomweb/studies/1.2.3.4.5/metadata', 404, owner],
      [`/dicomweb/studies/${series.studyInstanceUid}/metadata`, 404, stranger],
      [`/dicomweb/studies/${series.studyInstanceUid}`, 404, stranger],
      [
        `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${series.files[0]!.sopInstanceUid}/frames/1`,
        404,
        stranger,
      ],
      [`/dicomweb/studies/${series.studyInstanceUid}/series`, 404, stranger],
      [
        `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${series.files[0]!.sopInstanceUid}/frames/2`,
        404,
        owner,
      ],
      [
        `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${series.files[0]!.sopInstanceUid}/frames/0`,
        400,
        owner,
      ],
      [
        `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${series.files[0]!.sopInstanceUid}/frames/1,x`,
        400,
        owner,
      ],
      ['/dicomweb/studies', 401, null],
    ];
    for (const [url, status, who] of cases) {
      const res = await ctx.app.inject({ url, headers: who ? auth(who) : {} });
      expect({ url, status: res.statusCode }).toEqual({ url, status });
      expect(res.json()).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
  });

  it('WADO-RS series metadata is DICOM JSON, computed once and served compressed', async () => {
    const url = `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/metadata`;
    const res = await ctx.app.inject({ url, headers: { ...auth(owner), 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    const plain = await ctx.app.inject({ url, headers: auth(owner) });
    const meta = plain.json() as Array<
      Record<string, { vr: string; Value?: unknown[]; BulkDataURI?: string }>
    >;
    expect(meta).toHaveLength(5);
    const first = meta.find((m) => m['00200013']!.Value![0] === 1)!;
    expect(first['00100010']).toEqual({ vr: 'PN', Value: [{ Alphabetic: 'Phantom^Square' }] });
    expect(first['00280010']).toEqual({ vr: 'US', Value: [64] });
    expect(first['00281050']!.Value).toEqual([500]);
    expect(first['7FE00010']!.BulkDataURI).toMatch(/\/dicomweb\/studies\/.+\/bulkdata\/7FE00010$/);
    expect(first['00020010']!.Value).toEqual(['1.2.840.10008.1.2.1']);
    // Kept in the database once the first answer is on its way.
    await eventually(async () => {
      const rows = await ctx.services.database.sql.executeSql(
        'select count(*)::int as n from series_metadata_cache',
        [],
      );
      return (rows.rows[0] as { n: number }).n >= 1;
    });

    const study = await ctx.app.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/metadata`,
      headers: auth(owner),
    });
    expect(study.json()).toHaveLength(5);
    const one = await ctx.app.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${series.files[2]!.sopInstanceUid}/metadata`,
      headers: auth(owner),
    });
    expect(one.json()).toHaveLength(1);
    expect(one.json()[0]['00080018'].Value).toEqual([series.files[2]!.sopInstanceUid]);
  });

  it('WADO-RS returns instances as stored when the Accept allows their transfer syntax, else 406', async () => {
    const res = await ctx.app.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}`,
      headers: { ...auth(owner), accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' },
    });
    expect(res.statusCode).toBe(200);
    const parts = parseMultipart(res.rawPayload, res.headers['content-type'] as string);
    expect(parts).toHaveLength(5);
    const stored = new Set(series.files.map((f) => f.bytes.toString('base64')));
    for (const p of parts) expect(stored.has(p.body.toString('base64'))).toBe(true);

    const jp2 = (
      await ctx.app.inject({ url: '/dicomweb/instances?includefield=00083002', headers: auth(owner) })
    )
      .json()
      .find(
        (i: Record<string, { Value?: string[] }>) =>
          i['00083002']?.Value?.[0] === '1.2.840.10008.1.2.4.91' ||
          i['00083002']?.Value?.[0] === '1.2.840.10008.1.2.4.90',
      );
    expect(jp2).toBeDefined();
    const base = `/dicomweb/studies/${jp2['0020000D'].Value[0]}/series/${jp2['0020000E'].Value[0]}/instances/${jp2['00080018'].Value[0]}`;
    const refused = await ctx.app.inject({
      url: base,
      headers: {
        ...auth(owner),
        accept: 'multipart/related; type="application/dicom"; transfer-syntax=1.2.840.10008.1.2.1',
      },
    });
    expect(refused.statusCode).toBe(406);
    const asStored = await ctx.app.inject({
      url: base,
      headers: {
        ...auth(owner),
        accept: `multipart/related; type="application/dicom"; transfer-syntax=${jp2['00083002'].Value[0]}`,
      },
    });
    expect(asStored.statusCode).toBe(200);
    expect(
      parseMultipart(asStored.rawPayload, asStored.headers['content-type'] as string)[0]!.body.equals(
        await readFile(fixture('JPEG2000.dcm')),
      ),
    ).toBe(true);

    // Encapsulated frames come back in their own syntax, declared in the part.
    const frame = await ctx.app.inject({
      url: `${base}/frames/1`,
      headers: {
        ...auth(owner),
        accept: 'multipart/related; type=application/octet-stream; transfer-syntax=*',
      },
    });
    expect(frame.statusCode).toBe(200);
    const [fp] = parseMultipart(frame.rawPayload, frame.headers['content-type'] as string);
    expect(fp!.headers['content-type']).toContain(`transfer-syntax=${jp2['00083002'].Value[0]}`);
    // A JPEG 2000 codestream starts with SOC (FF4F) or a JP2 signature box.
    expect(
      [fp!.body.readUInt16BE(0) === 0xff4f, fp!.body.subarray(4, 8).toString('latin1') === 'jP  '].some(
        Boolean,
      ),
    ).toBe(true);
    const wrongSyntax = await ctx.app.inject({
      url: `${base}/frames/1`,
      headers: {
        ...auth(owner),
        accept: 'multipart/related; type=application/octet-stream; transfer-syntax=1.2.840.10008.1.2.1',
      },
    });
    expect(wrongSyntax.statusCode).toBe(406);
  });

  it('frames: uncompressed pixels as stored, big-endian files returned little-endian', async () => {
    const f = series.files[1]!;
    const res = await ctx.app.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${f.sopInstanceUid}/frames/1`,
      headers: {
        ...auth(owner),
        accept: 'multipart/related; type="application/octet-stream"; transfer-syntax=*',
      },
    });
    expect(res.statusCode).toBe(200);
    const [part] = parseMultipart(res.rawPayload, res.headers['content-type'] as string);
    expect(part!.headers['content-type']).toBe(
      'application/octet-stream; transfer-syntax=1.2.840.10008.1.2.1',
    );
    const pixels = new Uint16Array(
      part!.body.buffer.slice(part!.body.byteOffset, part!.body.byteOffset + part!.body.byteLength),
    );
    expect(pixels).toHaveLength(64 * 64);
    const sq = squareOf(1, 5, 64);
    expect(pixels[(sq.y + 1) * 64 + sq.x + 1]).toBe(1000);
    expect(pixels[0]).toBe(0);

    // MR_small (little endian, owner) and MR_small_bigendian (same image, another user) give the same frame bytes.
    const other = await registerPatient(ctx, 'bigendian@example.com');
    const be = { id: other.json().data.id as string, token: other.json().data.authToken as string };
    await ingestFiles(ctx, be.id, [fixture('MR_small_bigendian.dcm')]);
    const ds = dicomParser.parseDicom(await readFile(fixture('MR_small.dcm')));
    const uids = {
      study: ds.string('x0020000d')!,
      series: ds.string('x0020000e')!,
      sop: ds.string('x00080018')!,
    };
    const url = `/dicomweb/studies/${uids.study}/series/${uids.series}/instances/${uids.sop}/frames/1`;
    const le = await ctx.app.inject({ url, headers: auth(owner) });
    const bigEndian = await ctx.app.inject({ url, headers: auth(be) });
    expect(le.statusCode).toBe(200);
    expect(bigEndian.statusCode).toBe(200);
    const leFrame = parseMultipart(le.rawPayload, le.headers['content-type'] as string)[0]!;
    const beFrame = parseMultipart(bigEndian.rawPayload, bigEndian.headers['content-type'] as string)[0]!;
    expect(beFrame.headers['content-type']).toContain('transfer-syntax=1.2.840.10008.1.2.1');
    expect(beFrame.body.length).toBe(64 * 64 * 2);
    expect(beFrame.body.equals(leFrame.body)).toBe(true);
    expect(mrStudyId).toBeDefined();
  });

  it('a file whose pixel data is cut short fails for that frame only, and the server keeps answering', async () => {
    const gen = generateSeries({ count: 1, size: 64 });
    const whole = gen.files[0]!.bytes;
    const cut = whole.subarray(0, whole.length - 2000);
    await ingestFiles(ctx, owner.id, [Buffer.from(cut)]);
    const base = `/dicomweb/studies/${gen.studyInstanceUid}/series/${gen.seriesInstanceUid}/instances/${gen.files[0]!.sopInstanceUid}`;
    const frame = await ctx.app.inject({ url: `${base}/frames/1`, headers: auth(owner) });
    expect(frame.statusCode).toBe(422);
    expect(frame.json().code).toBe('UNPROCESSABLE');
    const meta = await ctx.app.inject({ url: `${base}/metadata`, headers: auth(owner) });
    expect(meta.statusCode).toBe(200);
    expect(meta.json()[0]['00280010'].Value).toEqual([64]);
    const health = await ctx.app.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/metadata`,
      headers: auth(owner),
    });
    expect(health.statusCode).toBe(200);
  });

  it('bulk data and WADO-URI', async () => {
    const f = series.files[0]!;
    const base = `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/instances/${f.sopInstanceUid}`;
    const bulk = await ctx.app.inject({ url: `${base}/bulkdata/7FE00010`, headers: auth(owner) });
    expect(bulk.statusCode).toBe(200);
    expect(parseMultipart(bulk.rawPayload, bulk.headers['content-type'] as string)[0]!.body.length).toBe(
      64 * 64 * 2,
    );
    const uri = await ctx.app.inject({
      url: `/dicomweb/wado?requestType=WADO&studyUID=${series.studyInstanceUid}&seriesUID=${series.seriesInstanceUid}&objectUID=${f.sopInstanceUid}&contentType=application/dicom`,
      headers: auth(owner),
    });
    expect(uri.statusCode).toBe(200);
    expect(uri.rawPayload.equals(f.bytes)).toBe(true);
    const jpeg = await ctx.app.inject({
      url: `/dicomweb/wado?requestType=WADO&studyUID=${series.studyInstanceUid}&seriesUID=${series.seriesInstanceUid}&objectUID=${f.sopInstanceUid}`,
      headers: auth(owner),
    });
    expect(jpeg.statusCode).toBe(200);
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    expect(jpeg.rawPayload.readUInt16BE(0)).toBe(0xffd8);
    const noFrame = await ctx.app.inject({
      url: `/dicomweb/wado?requestType=WADO&studyUID=${series.studyInstanceUid}&seriesUID=${series.seriesInstanceUid}&objectUID=${f.sopInstanceUid}&contentType=image/png&frameNumber=2`,
      headers: auth(owner),
    });
    expect(noFrame.statusCode).toBe(404);
    const badType = await ctx.app.inject({
      url: `/dicomweb/wado?requestType=WADO&studyUID=${series.studyInstanceUid}&seriesUID=${series.seriesInstanceUid}&objectUID=${f.sopInstanceUid}&contentType=video/mpeg`,
      headers: auth(owner),
    });
    expect(badType.statusCode).toBe(406);
    const denied = await ctx.app.inject({
      url: `/dicomweb/wado?requestType=WADO&studyUID=${series.studyInstanceUid}&seriesUID=${series.seriesInstanceUid}&objectUID=${f.sopInstanceUid}`,
      headers: auth(stranger),
    });
    expect(denied.statusCode).toBe(404);
  });

  it('thumbnails: study, series, instance and frame drawn on the server, as JPEG or PNG, multipart when asked', async () => {
    const base = `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}`;
    // The series' middle instance (the third of five) carries its square at a known place.
    const middle = series.files[2]!;
    const square = squareOf(2, 5, 64);
    const brightness = async (image: Buffer, x: number, y: number) => {
      const { data, info } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
      return data[y * info.width + x]!;
    };
    for (const url of [`/dicomweb/studies/${series.studyInstanceUid}/thumbnail`, `${base}/thumbnail`]) {
      const res = await ctx.app.inject({ url, headers: auth(owner) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      // Never enlarged: a 64×64 image stays 64×64.
      expect(await sharp(res.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 64, height: 64 });
      const inside = await brightness(
        res.rawPayload,
        square.x + Math.floor(square.side / 2),
        square.y + Math.floor(square.side / 2),
      );
      const outside = await brightness(res.rawPayload, 2, 62);
      expect(inside - outside).toBeGreaterThan(100);
    }
    const png = await ctx.app.inject({
      url: `${base}/instances/${middle.sopInstanceUid}/thumbnail?accept=image/png&viewport=32,16`,
      headers: auth(owner),
    });
    expect(png.headers['content-type']).toBe('image/png');
    expect(await sharp(png.rawPayload).metadata()).toMatchObject({ format: 'png', width: 16, height: 16 });
    const frame = await ctx.app.inject({
      url: `${base}/instances/${middle.sopInstanceUid}/frames/1/thumbnail`,
      headers: { ...auth(owner), accept: 'image/png' },
    });
    expect(frame.headers['content-type']).toBe('image/png');

    // dicomweb-client (and so OHIF) reads bulk answers only as multipart: the image is its one part.
    const multipart = await ctx.app.inject({
      url: `${base}/instances/${middle.sopInstanceUid}/thumbnail?accept=image/jpeg`,
      headers: {
        ...auth(owner),
        accept: 'multipart/related; type="application/octet-stream"; transfer-syntax=*',
      },
    });
    expect(multipart.statusCode).toBe(200);
    const parts = parseMultipart(multipart.rawPayload, multipart.headers['content-type'] as string);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(parts[0]!.body).metadata()).format).toBe('jpeg');

    const codes = async (url: string, headers: Record<string, string> = auth(owner)) =>
      (await ctx.app.inject({ url, headers })).statusCode;
    expect(await codes(`${base}/thumbnail?accept=video/mpeg`)).toBe(406);
    expect(await codes(`${base}/thumbnail?viewport=0,10`)).toBe(400);
    expect(await codes(`${base}/thumbnail?viewport=wide`)).toBe(400);
    expect(await codes(`${base}/instances/${middle.sopInstanceUid}/frames/2/thumbnail`)).toBe(404);
    expect(await codes(`${base}/instances/${middle.sopInstanceUid}/frames/1,2/thumbnail`)).toBe(400);
    expect(await codes(`${base}/thumbnail`, auth(stranger))).toBe(404);
    expect(await codes(`/dicomweb/studies/1.2.3.4/thumbnail`)).toBe(404);
    expect(await codes(`${base}/thumbnail`, {})).toBe(401);
    // A compressed fixture is drawn too.
    const j2k = dicomParser.parseDicom(await readFile(fixture('JPEG2000.dcm')));
    const compressed = await ctx.app.inject({
      url: `/dicomweb/studies/${j2k.string('x0020000d')}/series/${j2k.string('x0020000e')}/thumbnail`,
      headers: auth(owner),
    });
    expect(compressed.statusCode).toBe(200);
    expect((await sharp(compressed.rawPayload).metadata()).format).toBe('jpeg');
  });

  it('every access is audited, denials included', async () => {
    const rows = await ctx.services.database.sql.executeSql(
      "select action, outcome, actor_id from audit_events where action like 'dicomweb.%'",
      [],
    );
    const events = rows.rows as Array<{ action: string; outcome: string; actor_id: string }>;
    expect(
      events.some(
        (e) => e.action === 'dicomweb.metadata' && e.outcome === 'success' && e.actor_id === owner.id,
      ),
    ).toBe(true);
    expect(events.some((e) => e.action === 'dicomweb.retrieve' && e.outcome === 'success')).toBe(true);
    expect(events.some((e) => e.outcome === 'denied' && e.actor_id === stranger.id)).toBe(true);
    expect(events.some((e) => e.action === 'dicomweb.frames')).toBe(true);
    expect(events.some((e) => e.action === 'dicomweb.thumbnail' && e.outcome === 'success')).toBe(true);
  });

  it('the viewer origin answers only a credential for that one study, which ends when the study is deleted', async () => {
    const urlRes = await ctx.app.inject({ url: `/api/dicom/viewer/${studyId}`, headers: auth(owner) });
    expect(urlRes.statusCode).toBe(200);
    const { url } = urlRes.json() as { url: string };
    expect(url).toContain(`StudyInstanceUIDs=${series.studyInstanceUid}`);
    const grant = new URL(url).hash.replace('#grant=', '');
    expect(new URL(url).search).not.toContain(grant);
    // The first browser to use the credential binds it; a copy of the link is refused elsewhere.
    const bind = await viewerApp.inject({
      method: 'POST',
      url: '/dicomweb/session',
      headers: { authorization: `Bearer ${grant}` },
    });
    expect(bind.statusCode).toBe(204);
    const cookie = bind.cookies[0]!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dicomweb' });
    const viewerAuth = { authorization: `Bearer ${grant}`, cookie: `${cookie.name}=${cookie.value}` };
    const elsewhere = await viewerApp.inject({
      method: 'POST',
      url: '/dicomweb/session',
      headers: { authorization: `Bearer ${grant}` },
    });
    expect(elsewhere.statusCode).toBe(401);
    expect(
      (await viewerApp.inject({ url: '/dicomweb/studies', headers: { authorization: `Bearer ${grant}` } }))
        .statusCode,
    ).toBe(401);
    expect(
      (await viewerApp.inject({ method: 'POST', url: '/dicomweb/session', headers: viewerAuth })).statusCode,
    ).toBe(204);

    expect(
      (await ctx.app.inject({ url: `/api/dicom/viewer/${studyId}`, headers: auth(stranger) })).statusCode,
    ).toBe(404);

    const ok = await viewerApp.inject({
      url: `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/metadata`,
      headers: viewerAuth,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['referrer-policy']).toBe('no-referrer');
    // Scoped to one study: the user's other studies stay out of reach.
    const ds = dicomParser.parseDicom(await readFile(fixture('MR_small.dcm')));
    expect(
      (
        await viewerApp.inject({
          url: `/dicomweb/studies/${ds.string('x0020000d')}/metadata`,
          headers: viewerAuth,
        })
      ).statusCode,
    ).toBe(404);
    const list = await viewerApp.inject({ url: '/dicomweb/studies', headers: viewerAuth });
    expect(list.json()).toHaveLength(1);
    // The app's session is not a viewer credential.
    expect((await viewerApp.inject({ url: '/dicomweb/studies', headers: auth(owner) })).statusCode).toBe(401);

    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/studies/${owner.id}/${studyId}`,
      headers: auth(owner),
    });
    expect(del.statusCode).toBeLessThan(300);
    await eventually(
      async () =>
        (await viewerApp.inject({ url: '/dicomweb/studies', headers: viewerAuth })).statusCode === 401,
      5_000,
    );
  });
});
