import { randomUUID } from 'node:crypto';
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { instances, studies } from '../src/db/schema/index';
import { ArchivePrescan } from '../src/modules/studies/archive-prescan';
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
} from './helpers/studies';
import { createTestContext, type TestContext } from './helpers/test-app';

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

  it('waits for the rest of an entry without another pass until more bytes arrive', async () => {
    const s1 = series(2);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    // The first entry and half of the second have arrived.
    const secondData = zip.indexOf(s1.files[1]!.data.subarray(0, 256));
    const arrived = secondData + 100;
    await writeFile(file, zip.subarray(0, arrived));
    const prescan = new ArchivePrescan(pino({ level: 'silent' }));
    prescan.advance('upload', file, arrived);
    // It reads the first entry and stops at the incomplete second one instead of polling the file.
    await vi.waitFor(() => expect(prescan.scanning('upload')).toBe(false), { timeout: 2000 });

    await appendFile(file, zip.subarray(arrived));
    const entries = await prescan.take('upload', zip.length);
    expect([...entries!.values()].map((e) => e.outcome.kind)).toEqual(['instance', 'instance']);
  });

  it('reads only what is in the file when tus reports bytes still on their way to the disk', async () => {
    const s1 = series(3);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    // tus counts bytes as they pass through its stream; the file may still lack some of them, here
    // all but the first entry and ten bytes of the second one's local header.
    const secondHeader = zip.indexOf(s1.files[1]!.data.subarray(0, 256)) - 30 - 'DICOM/1.dcm'.length;
    expect(zip.readUInt32LE(secondHeader)).toBe(0x04034b50);
    await writeFile(file, zip.subarray(0, secondHeader + 10));
    const prescan = new ArchivePrescan(pino({ level: 'silent' }));
    prescan.advance('upload', file, zip.length);
    await vi.waitFor(() => expect(prescan.scanning('upload')).toBe(false), { timeout: 2000 });

    await appendFile(file, zip.subarray(secondHeader + 10));
    const entries = await prescan.take('upload', zip.length);
    expect([...entries!.values()].map((e) => e.outcome.kind)).toEqual(['instance', 'instance', 'instance']);
  });
});
