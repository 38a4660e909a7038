import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { instances, studies } from '../../../src/db/schema/index';
import { ArchivePrescan } from '../../../src/modules/ingest/archive-prescan';
import {
  buildZip,
  listen,
  makeDicom,
  newPatient,
  processUploaded,
  storageToken,
  tusUpload,
  uid,
  uploadAndProcess,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let base: string;
let ada: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-prescan@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

const series = (count: number) => {
  const studyUid = uid();
  const seriesUid = uid();
  const sops = Array.from({ length: count }, () => uid());
  const files = sops.map((sopUid, i) => ({
    name: `DICOM/${i}.dcm`,
    data: makeDicom({ studyUid, seriesUid, sopUid, instanceNumber: i + 1 }),
  }));
  return { studyUid, sops, files };
};
const sopsOfStudy = async (studyInstanceUid: string) => {
  const { db } = ctx.services.database;
  const [study] = await db.select().from(studies).where(eq(studies.studyInstanceUid, studyInstanceUid));
  if (!study) return [];
  return (await db.select().from(instances).where(eq(instances.studyId, study.id)))
    .map((i) => i.sopInstanceUid)
    .sort();
};

describe('reading an upload while it arrives', () => {
  it('reads every stored entry during the upload, so processing only indexes', async () => {
    const s1 = series(6);
    const zip = buildZip([...s1.files, { name: 'README.txt', data: Buffer.from('not an image') }]);
    const objectName = `${ada.id}/${randomUUID()}/study.zip`;
    // Small chunks: the archive arrives in many pieces, with entries split across them.
    await tusUpload(base, await storageToken(ctx, ada), objectName, zip, { chunkSize: 4096 });
    const { upload } = await processUploaded(ctx, ada, objectName);
    expect(upload.status).toBe('completed');
    expect(upload.summary).toMatchObject({
      files: 7,
      prescanned: 7,
      instances: 6,
      skipReasons: { 'not a DICOM file': 1 },
    });
    expect(await sopsOfStudy(s1.studyUid)).toEqual([...s1.sops].sort());
  });

  it('leaves a damaged entry to processing, which skips it and keeps the rest', async () => {
    const s1 = series(4);
    const zip = buildZip(s1.files);
    // Flip a byte inside the second file's data: its CRC-32 no longer matches.
    const at = zip.indexOf(s1.files[1]!.data.subarray(200, 232));
    expect(at).toBeGreaterThan(0);
    zip[at + 5] = zip[at + 5]! ^ 0xff;
    const { upload } = await uploadAndProcess(ctx, base, ada, zip);
    expect(upload.status).toBe('completed');
    expect(upload.summary).toMatchObject({
      files: 4,
      prescanned: 3,
      instances: 3,
      skipReasons: { 'damaged entry in the ZIP': 1 },
    });
    expect(await sopsOfStudy(s1.studyUid)).toEqual([s1.sops[0], s1.sops[2], s1.sops[3]].sort());
  });

  it('reads an upload terminated and created again under the same name afresh', async () => {
    const objectName = `${ada.id}/${randomUUID()}/study.zip`;
    const first = series(3);
    const firstZip = buildZip(first.files);
    const token = await storageToken(ctx, ada);
    const headers = { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}` };
    const created = await fetch(`${base}/api/uploads`, {
      method: 'POST',
      headers: {
        ...headers,
        'upload-length': String(firstZip.length),
        'upload-metadata': `objectName ${Buffer.from(objectName).toString('base64')}`,
      },
    });
    expect(created.status).toBe(201);
    const patch = await fetch(`${base}/api/uploads/${objectName}`, {
      method: 'PATCH',
      headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: firstZip.subarray(0, Math.floor(firstZip.length / 2)),
    });
    expect(patch.status).toBe(204);
    const del = await fetch(`${base}/api/uploads/${objectName}`, { method: 'DELETE', headers });
    expect(del.status).toBe(204);

    const second = series(3);
    await tusUpload(base, token, objectName, buildZip(second.files), { chunkSize: 8192 });
    const { upload } = await processUploaded(ctx, ada, objectName);
    expect(upload.summary).toMatchObject({ files: 3, instances: 3 });
    expect(await sopsOfStudy(second.studyUid)).toEqual([...second.sops].sort());
    expect(await sopsOfStudy(first.studyUid)).toEqual([]);
  });

  it('catches up from the file when an upload resumes at fewer bytes than passed by', async () => {
    const s1 = series(3);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    const prescan = new ArchivePrescan(pino({ level: 'silent' }));
    // A write saw bytes up to the middle of the third entry go by, but only the first entry and the
    // start of the second reached the file before it failed.
    const seen = await prescan.beginWrite('upload', file, 0);
    seen!(Buffer.from(zip.subarray(0, zip.indexOf(s1.files[2]!.data.subarray(0, 256)) + 100)));
    const kept = zip.indexOf(s1.files[1]!.data.subarray(0, 256)) + 100;
    await writeFile(file, zip.subarray(0, kept));
    expect(prescan.heldBytes).toBeGreaterThan(0);

    // The upload resumes where the file ends; the scan reads the second entry's start from the file.
    const resumed = await prescan.beginWrite('upload', file, kept);
    resumed!(Buffer.from(zip.subarray(kept)));
    const entries = prescan.take('upload');
    expect(
      [...entries!.values()].map((e) => e.outcome.kind === 'instance' && e.outcome.header.sopInstanceUid),
    ).toEqual(s1.sops);
    expect(prescan.heldBytes).toBe(0);
  });

  it('starts following an upload that is under way by reading what its file holds', async () => {
    const s1 = series(2);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    const half = Math.floor(zip.length / 2);
    await writeFile(file, zip.subarray(0, half));
    // A process that did not see the first half (it started since): the next write starts at `half`.
    const prescan = new ArchivePrescan(pino({ level: 'silent' }));
    const observe = await prescan.beginWrite('upload', file, half);
    observe!(Buffer.from(zip.subarray(half)));
    const entries = prescan.take('upload');
    expect([...entries!.values()].map((e) => e.outcome.kind)).toEqual(['instance', 'instance']);
    expect(prescan.take('upload')).toBeUndefined();
  });

  it('gives up on an upload whose file is shorter than where it resumes, and the job reads it', async () => {
    const s1 = series(2);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    await writeFile(file, zip.subarray(0, 100));
    const prescan = new ArchivePrescan(pino({ level: 'silent' }));
    expect(await prescan.beginWrite('upload', file, 1000)).toBeUndefined();
    expect(prescan.take('upload')).toBeUndefined();
  });
});
