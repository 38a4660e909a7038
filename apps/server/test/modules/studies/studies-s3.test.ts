import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { instances } from '../../../src/db/schema/index';
import type { JobDefinition } from '../../../src/jobs/queue';
import {
  FIXTURES,
  buildZip,
  listen,
  makeDicom,
  newPatient,
  readZip,
  storageToken,
  tusUpload,
  uid,
  uploadAndProcess,
  type Patient,
  processUploaded,
} from '../../helpers/studies';
import { startMotoS3, type LocalS3 } from '../../helpers/s3rver';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

// The same flows as studies.test.ts and uploads.test.ts, with uploads, study files and downloads in a
// real S3-protocol server (moto; s3rver lacks the multipart listing calls the tus store needs): tus
// through @tus/s3-store, processing reading the ZIP with ranged GETs, deletes and sweeps in the bucket.
let s3: LocalS3;
let client: S3Client;
let ctx: TestContext;
let base: string;
let ada: Patient;
let eve: Patient;

beforeAll(async () => {
  s3 = await startMotoS3();
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  ctx = await createTestContext(s3.env);
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-s3@example.com');
  eve = await newPatient(ctx, 'eve-s3@example.com');
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  client?.destroy();
  await s3?.stop();
});

const bucketKeys = async (prefix = '') => {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const res = await client.send(
      new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix, ContinuationToken: token }),
    );
    keys.push(...(res.Contents ?? []).map((o) => o.Key!));
    token = res.IsTruncated ? res.NextContinuationToken : undefined;
  } while (token);
  return keys;
};

describe('studies on S3', () => {
  const studyUid = uid();
  const seriesUid = uid();
  // About 20 MiB: more than one 16 MiB tus part, so the upload is a real multipart upload.
  const big = Array.from({ length: 40 }, (_, i) => ({
    name: `series/${i}.dcm`,
    data: makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: i + 1, rows: 512, columns: 512 }),
  }));
  const small = { name: 'CT_small.dcm', data: readFileSync(`${FIXTURES}/CT_small.dcm`) };
  let studyId: string;

  it('reports the bucket in the storage token', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/storage/token', headers: ada.auth });
    expect(res.json()).toMatchObject({ bucket: s3.bucket, uploadUrl: '/api/uploads' });
  });

  it('resumes a chunked tus upload stored as a multipart upload', async () => {
    const data = buildZip(big);
    const objectName = `${ada.id}/${randomUUID()}/study.zip`;
    let firstUrl = '';
    await new Promise<void>((resolve, reject) => {
      void storageToken(ctx, ada).then((token) =>
        tusUpload(base, token, objectName, data, {
          chunkSize: 6 * 1024 * 1024,
          onChunk: (upload, sent) => {
            if (sent >= 6 * 1024 * 1024 && !firstUrl) {
              firstUrl = upload.url!;
              void upload.abort().then(resolve, reject);
            }
          },
        }).catch(reject),
      );
    });
    const info = await ctx.services.uploadArea.info(objectName);
    // At least the first chunk; the client may have started the next one before it was stopped.
    expect(info).toMatchObject({ size: data.length });
    expect(info!.offset).toBeGreaterThanOrEqual(6 * 1024 * 1024);
    expect(info!.offset).toBeLessThan(data.length);
    await tusUpload(base, await storageToken(ctx, ada), objectName, data, {
      chunkSize: 6 * 1024 * 1024,
      uploadUrl: firstUrl,
    });
    expect((await ctx.services.uploadArea.info(objectName))!.offset).toBe(data.length);

    const { upload: row } = await processUploaded(ctx, ada, objectName, 60_000);
    expect(row.status).toBe('completed');
    studyId = row.studyIds![0]!;
    // The archive and tus's records leave the bucket once the run has finished; the instances stay.
    await eventually(async () => (await bucketKeys(`${ada.id}/`)).length === 0);
    const keys = (
      await ctx.services.database.db.select().from(instances).where(eq(instances.studyId, studyId))
    ).map((i) => i.storageKey);
    expect(keys).toHaveLength(40);
    expect((await bucketKeys('dicom/')).sort()).toEqual([...keys].sort());
  }, 120_000);

  it('lists the study and downloads it whole and by range from the bucket', async () => {
    const list = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/user/${ada.id}`,
      headers: ada.auth,
    });
    expect(list.json().data.map((s: { id: string }) => s.id)).toEqual([studyId]);
    const full = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/download/${studyId}`,
      headers: ada.auth,
    });
    expect(full.statusCode).toBe(200);
    const entries = await readZip(full.rawPayload);
    const byBytes = new Set([...entries.values()].map((b) => b.toString('base64')));
    for (const f of big) expect(byBytes.has(f.data.toString('base64'))).toBe(true);
    const start = Math.floor(full.rawPayload.length / 3);
    const part = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/download/${studyId}`,
      headers: { ...ada.auth, range: `bytes=${start}-${start + 3_000_000}` },
    });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(full.rawPayload.subarray(start, start + 3_000_001))).toBe(true);
    expect(
      (await ctx.app.inject({ method: 'GET', url: `/api/studies/download/${studyId}`, headers: eve.auth }))
        .statusCode,
    ).toBe(404);
  });

  it('processes a second, small upload and refuses a damaged archive', async () => {
    const ok = await uploadAndProcess(ctx, base, eve, buildZip([small]));
    expect(ok.upload.status).toBe('completed');
    const truncated = buildZip([small]).subarray(0, 200);
    const bad = await uploadAndProcess(ctx, base, eve, truncated);
    expect(bad.upload.status).toBe('failed');
    await eventually(async () => (await bucketKeys(`${eve.id}/`)).length === 0);
  });

  it('deletes the study objects from the bucket', async () => {
    const before = await bucketKeys('dicom/');
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/studies/${ada.id}/${studyId}`,
      headers: ada.auth,
    });
    expect(del.statusCode).toBe(200);
    const after = await bucketKeys('dicom/');
    expect(before.length - after.length).toBe(40);
    expect(after.some((k) => k.includes(studyId))).toBe(false);
  });

  it('sweeps expired unfinished uploads out of the bucket', async () => {
    // A server of its own whose uploads expire after 1.8 s; the other tests keep the default week, so
    // a slow run never expires an upload they are still sending.
    const short = await createTestContext({ ...s3.env, UPLOAD_EXPIRY_HOURS: '0.0005' });
    try {
      const shortBase = await listen(short);
      const sam = await newPatient(short, 'sam-s3@example.com');
      const objectName = `${sam.id}/${randomUUID()}/study.zip`;
      const token = await storageToken(short, sam);
      const headers = { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}` };
      const created = await fetch(`${shortBase}/api/uploads`, {
        method: 'POST',
        headers: {
          ...headers,
          'upload-length': String(7 * 1024 * 1024),
          'upload-metadata': `objectName ${Buffer.from(objectName).toString('base64')}`,
        },
      });
      expect(created.status).toBe(201);
      // One full part (S3's 5 MiB minimum) and then the client goes away.
      const patch = await fetch(`${shortBase}/api/uploads/${objectName}`, {
        method: 'PATCH',
        headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        body: Buffer.alloc(6 * 1024 * 1024, 7),
      });
      expect(patch.status).toBe(204);
      expect(await short.services.uploadArea.info(objectName)).toMatchObject({ offset: 6 * 1024 * 1024 });
      await new Promise((r) => setTimeout(r, 2_000));
      const sweep = short.services.jobs.find((j) => j.name === 'sweep-uploads') as JobDefinition;
      await sweep.handler({}, { jobId: randomUUID(), log: short.services.log });
      expect(await short.services.uploadArea.info(objectName)).toBeNull();
      expect(await bucketKeys(`${sam.id}/`)).toEqual([]);
    } finally {
      await short.close();
    }
  }, 60_000);
});
