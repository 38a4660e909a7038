import { randomUUID } from 'node:crypto';
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { instances, studies } from '../../../src/db/schema/index';
import { ArchivePrescan } from '../../../src/modules/ingest/archive-prescan';
import { UploadScans } from '../../../src/modules/ingest/upload-scans';
import type { ScannedEntry } from '../../../src/dicom-archive/zip-stream-scanner';
import { DEFAULT_ZIP_LIMITS, filesOfListing } from '../../../src/dicom-archive/zip-reader';
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

  it('goes back when a write resumes at fewer bytes than it read', async () => {
    const s1 = series(3);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    const scans = new UploadScans();
    // The scan read up to the middle of the third entry; then the file lost what followed the start
    // of the second, and the next write starts there.
    const seen = zip.indexOf(s1.files[2]!.data.subarray(0, 256)) + 100;
    await writeFile(file, zip.subarray(0, seen));
    expect(scans.begin('upload', file, 0)).toBe(true);
    scans.readTo('upload', seen);
    expect(scans.heldBytes).toBeGreaterThan(0);
    const kept = zip.indexOf(s1.files[1]!.data.subarray(0, 256)) + 100;
    await writeFile(file, zip.subarray(0, kept));

    // The scan reads the second entry again from its start.
    expect(scans.begin('upload', file, kept)).toBe(true);
    await writeFile(file, zip);
    scans.readTo('upload', zip.length);
    const entries = scans.take('upload');
    expect(
      [...entries!.values()].map((e) => e.outcome.kind === 'instance' && e.outcome.header.sopInstanceUid),
    ).toEqual(s1.sops);
    expect(scans.heldBytes).toBe(0);
  });

  it('starts following an upload that is under way by reading what its file holds', async () => {
    const s1 = series(2);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    const half = Math.floor(zip.length / 2);
    await writeFile(file, zip.subarray(0, half));
    // A process that did not see the first half (it started since): the next write starts at `half`.
    const scans = new UploadScans();
    expect(scans.begin('upload', file, half)).toBe(true);
    await writeFile(file, zip);
    scans.readTo('upload', zip.length);
    const entries = scans.take('upload');
    expect([...entries!.values()].map((e) => e.outcome.kind)).toEqual(['instance', 'instance']);
    expect(scans.take('upload')).toBeUndefined();
  });

  it('gives up on an upload whose file is shorter than it was told, and the job reads it', async () => {
    const s1 = series(2);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    await writeFile(file, zip.subarray(0, 100));
    const scans = new UploadScans();
    // Resuming past the file's end…
    expect(scans.begin('upload', file, 1000)).toBe(false);
    scans.readTo('upload', zip.length);
    expect(scans.take('upload')).toBeUndefined();
    // …or told of bytes the file does not hold.
    expect(scans.begin('other', file, 0)).toBe(true);
    scans.readTo('other', zip.length);
    expect(scans.take('other')).toBeUndefined();
  });

  it('hands entries over as they are found, again when a rewind finds them anew, and says when it drops an upload', async () => {
    const s1 = series(3);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    const dropped: string[] = [];
    const scans = new UploadScans(undefined, (id) => dropped.push(id));
    const sopOf = ([, e]: [number, ScannedEntry]) =>
      e.outcome.kind === 'instance' && e.outcome.header.sopInstanceUid;
    const seen = zip.indexOf(s1.files[2]!.data.subarray(0, 256)) + 100;
    await writeFile(file, zip.subarray(0, seen));
    expect(scans.begin('upload', file, 0)).toBe(true);
    scans.readTo('upload', seen);
    expect(scans.drainFound('upload').map(sopOf)).toEqual([s1.sops[0], s1.sops[1]]);
    expect(scans.drainFound('upload')).toEqual([]);

    // Resumed in the middle of the second entry: it is found again, then the third.
    const kept = zip.indexOf(s1.files[1]!.data.subarray(0, 256)) + 100;
    await writeFile(file, zip.subarray(0, kept));
    expect(scans.begin('upload', file, kept)).toBe(true);
    await writeFile(file, zip);
    scans.readTo('upload', zip.length);
    expect(scans.drainFound('upload').map(sopOf)).toEqual([s1.sops[1], s1.sops[2]]);
    expect([...scans.take('upload')!.values()].map((e) => sopOf([0, e]))).toEqual(s1.sops);
    // Taking is not dropping: nothing is said.
    expect(dropped).toEqual([]);

    expect(scans.begin('other', file, 0)).toBe(true);
    scans.forget('other');
    scans.forget('other');
    expect(dropped).toEqual(['other']);
    // An upload it cannot follow is dropped too.
    expect(scans.begin('short', file, zip.length + 1)).toBe(false);
    expect(dropped).toEqual(['other', 'short']);
  });
});

describe('listing a finished upload', () => {
  it('lists once every byte passed the scan, says why an archive is refused, and nothing for one it cannot read', async () => {
    const s1 = series(2);
    const good = buildZip(s1.files);
    const bad = buildZip([{ name: '../escape.dcm', data: s1.files[0]!.data }]);
    const notZip = Buffer.from('not a zip at all, only words');
    const scans = new UploadScans();
    const place = async (bytes: Buffer) => {
      const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
      await writeFile(file, bytes);
      const id = randomUUID();
      expect(scans.begin(id, file, 0)).toBe(true);
      return id;
    };
    // Half the bytes passed: the upload cannot be finished at this size here, so no listing.
    const half = await place(good);
    scans.readTo(half, 100);
    scans.finished(half, good.length, DEFAULT_ZIP_LIMITS);
    expect(scans.listingOf(half)).toBeUndefined();

    const ok = await place(good);
    scans.readTo(ok, good.length);
    scans.finished(ok, good.length, DEFAULT_ZIP_LIMITS);
    const listed = await scans.listingOf(ok);
    expect(listed && 'listing' in listed && filesOfListing(listed.listing).map((f) => f.name)).toEqual(
      s1.files.map((f) => f.name),
    );

    const refused = await place(bad);
    scans.readTo(refused, bad.length);
    scans.finished(refused, bad.length, DEFAULT_ZIP_LIMITS);
    expect(await scans.listingOf(refused)).toMatchObject({ refused: expect.stringMatching(/unsafe path/) });

    const garbage = await place(notZip);
    scans.readTo(garbage, notZip.length);
    scans.finished(garbage, notZip.length, DEFAULT_ZIP_LIMITS);
    expect(await scans.listingOf(garbage)).toBeNull();
    // Taken, the upload's listing goes with it.
    scans.take(ok);
    expect(scans.listingOf(ok)).toBeUndefined();
  });
});

describe('the prescan worker thread', () => {
  it('scans the writes it is told of in order, across writes, and hands the results over once', async () => {
    const s1 = series(40);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    const prescan = new ArchivePrescan(pino({ level: 'silent' }), { zipLimits: DEFAULT_ZIP_LIMITS });
    try {
      // Two writes (two PATCH requests), the second told of in parts of odd sizes.
      const cut = Math.floor(zip.length / 3);
      await writeFile(file, zip.subarray(0, cut));
      const first = await prescan.beginWrite('upload', file, 0);
      first.written(cut);
      first.end();
      await appendFile(file, zip.subarray(cut));
      const second = await prescan.beginWrite('upload', file, cut);
      for (let at = cut; at < zip.length; at += 77_777) second.written(Math.min(zip.length - at, 77_777));
      second.end();
      const taken = await prescan.take('upload');
      expect(
        [...taken!.entries.values()].map(
          (e) => e.outcome.kind === 'instance' && e.outcome.header.sopInstanceUid,
        ),
      ).toEqual(s1.sops);
      // Nobody said the upload finished: no listing was made.
      expect(taken!.listing).toBeUndefined();
      expect(await prescan.heldBytes()).toBe(0);
      expect(await prescan.take('upload')).toBeUndefined();
    } finally {
      await prescan.close();
    }
    // A closed prescan answers nothing, and the job reads the upload itself.
    expect(await prescan.take('upload')).toBeUndefined();
  });

  it('hands over a resumed upload whole and in order, and nothing for an upload it was told to forget', async () => {
    const s1 = series(12);
    const zip = buildZip(s1.files);
    const file = path.join(ctx.dataDir, `prescan-${randomUUID()}.zip`);
    const prescan = new ArchivePrescan(pino({ level: 'silent' }), { zipLimits: DEFAULT_ZIP_LIMITS });
    try {
      // The first write reached the middle of the tenth entry; the file then kept it only up to the
      // fifth (the worker has read it by the time heldBytes answers).
      const seen = zip.indexOf(s1.files[9]!.data.subarray(0, 256)) + 100;
      await writeFile(file, zip.subarray(0, seen));
      const first = await prescan.beginWrite('upload', file, 0);
      first.written(seen);
      first.end();
      expect(await prescan.heldBytes()).toBeGreaterThan(0);
      const kept = zip.indexOf(s1.files[4]!.data.subarray(0, 256)) + 100;
      await writeFile(file, zip.subarray(0, kept));
      const second = await prescan.beginWrite('upload', file, kept);
      await appendFile(file, zip.subarray(kept));
      second.written(zip.length - kept);
      second.end();
      // The upload finished: the worker lists the archive, and take hands the listing over with the entries.
      prescan.finished('upload', zip.length);
      const taken = await prescan.take('upload');
      expect(
        [...taken!.entries.values()].map(
          (e) => e.outcome.kind === 'instance' && e.outcome.header.sopInstanceUid,
        ),
      ).toEqual(s1.sops);
      const listed = taken!.listing!;
      expect(listed).toMatchObject({ size: zip.length, limits: DEFAULT_ZIP_LIMITS });
      expect(
        'listing' in listed &&
          filesOfListing(listed.listing).map((f) => [f.name, f.entry.relativeOffsetOfLocalHeader]),
      ).toEqual(s1.files.map((f, i) => [f.name, [...taken!.entries.keys()][i]]));

      const other = await prescan.beginWrite('other', file, 0);
      other.written(seen);
      other.end();
      expect(await prescan.heldBytes()).toBeGreaterThan(0);
      prescan.forget('other');
      expect(await prescan.take('other')).toBeUndefined();
      expect(await prescan.heldBytes()).toBe(0);
    } finally {
      await prescan.close();
    }
  });
});
