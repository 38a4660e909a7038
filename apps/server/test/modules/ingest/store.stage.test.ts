import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingInstance } from '../../../src/modules/ingest/ingest-run';
import { archiveKey, instanceKey } from '../../../src/modules/ingest/storage-keys';
import { BatchQueue, StoreStage, reconcile } from '../../../src/modules/ingest/store.stage';
import { ReadStage } from '../../../src/modules/ingest/read.stage';
import { parseDicomHeader } from '../../../src/dicom-archive/dicom-header';
import {
  createStudiesRepository,
  type StudiesRepository,
} from '../../../src/modules/studies/studies.repository';
import { crcOf } from '../../../src/dicom-archive/zip-reader';
import { openRun, type OpenedRun } from '../../helpers/ingest-run';
import { buildZip, makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
let repo: StudiesRepository;
const opened: OpenedRun[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-store-stage@example.com');
  repo = createStudiesRepository(ctx.services.database.db);
});
afterAll(async () => {
  for (const o of opened) await o.close();
  await ctx?.close();
});

const dicoms = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), instanceNumber: i, rows: 32, columns: 32 }),
  );

/** Opens a run of the archive and reads its files into instances waiting to be stored. */
async function pendingOf(zip: Buffer): Promise<{ o: OpenedRun; pending: PendingInstance[] }> {
  const o = await openRun(ctx, ada.id, zip);
  opened.push(o);
  const reader = new ReadStage(o.run.archive, o.files);
  const pending: PendingInstance[] = [];
  for (const [i, file] of o.files.entries()) {
    const read = await reader.read(i, true);
    if (read.kind !== 'read') throw new Error('expected bytes');
    const header = parseDicomHeader(read.data, { complete: true });
    if (header.kind !== 'instance') throw new Error('not an instance');
    pending.push({
      header,
      crc: file.entry.crc32 >>> 0,
      size: file.size,
      data: read.data,
      file,
      dataOffset: read.dataOffset,
    });
  }
  return { o, pending };
}
const read = async (key: string) => buffer(await ctx.services.storage.get(key));

describe('store stage', () => {
  it('plans to keep an archive of stored entries whole, and copies out compressed ones', async () => {
    const [a, b] = dicoms(2);
    const stored = await pendingOf(buildZip([{ name: 'a', data: a! }]));
    expect(stored.o.run.plan).toEqual({ keepWhole: true, localArchive: expect.any(String) });
    const mixed = await pendingOf(
      buildZip([
        { name: 'a', data: a! },
        { name: 'b', data: b!, method: 'deflate' },
      ]),
    );
    expect(mixed.o.run.plan.keepWhole).toBe(false);
  });

  it('copies instances out under keys recorded before they are written', async () => {
    const data = dicoms(3);
    const { o, pending } = await pendingOf(
      buildZip(data.map((d, i) => ({ name: `${i}.dcm`, data: d, method: 'deflate' as const }))),
    );
    await new StoreStage(o.run, { repo, storage: ctx.services.storage }).storeBatch(pending);
    const keys = pending.map((p) => instanceKey(o.run.upload.id, p.header.sopInstanceUid));
    expect(o.run.items.map((i) => i.storageKey).sort()).toEqual([...keys].sort());
    expect(o.run.summary.instances).toBe(3);
    for (const [i, key] of keys.entries()) expect((await read(key)).equals(data[i]!)).toBe(true);
    // Nothing indexes them yet: a failed run's reconcile finds them all.
    expect((await repo.unindexedIntents(o.run.upload.id)).sort()).toEqual([...keys].sort());
  });

  it("checks a large file's CRC while copying it, and skips it when the bytes do not match", async () => {
    const [a] = dicoms(1);
    const { o, pending } = await pendingOf(buildZip([{ name: 'a.dcm', data: a!, method: 'deflate' }]));
    const store = new StoreStage(o.run, { repo, storage: ctx.services.storage });
    await store.putEach([{ ...pending[0]!, data: null, crc: (crcOf(a!) ^ 1) >>> 0 }]);
    expect(o.run.items).toEqual([]);
    expect(o.run.summary.skipReasons).toEqual({ 'damaged entry in the ZIP': 1 });
    await store.putEach([{ ...pending[0]!, data: null }]);
    expect(o.run.items).toHaveLength(1);
    expect((await read(o.run.items[0]!.storageKey!)).equals(a!)).toBe(true);
  });

  it('keeps an archive whole when its new instances fill it, indexing them as slices of it', async () => {
    const data = dicoms(4);
    const { o, pending } = await pendingOf(buildZip(data.map((d, i) => ({ name: `${i}.dcm`, data: d }))));
    const store = new StoreStage(o.run, { repo, storage: ctx.services.storage });
    await store.storeBatch(pending);
    expect(o.run.items).toEqual([]);
    expect(o.run.toKeep.every((p) => p.data === null)).toBe(true);
    const adopting = await store.keepWholeOrCopy();
    const key = archiveKey(o.run.upload.id);
    expect(o.run.items.every((i) => i.storageKey === key)).toBe(true);
    expect(await adopting?.kept).toBe(true);
    expect(o.run.summary.instances).toBe(4);
    const archive = await read(key);
    for (const [i, item] of o.run.items.entries())
      expect(
        archive.subarray(item.storageOffset!, item.storageOffset! + item.sizeBytes).equals(data[i]!),
      ).toBe(true);
    expect(await repo.unindexedIntents(o.run.upload.id)).toEqual([key]);
  });

  it('copies the instances out when too little of the archive is new', async () => {
    const data = dicoms(4);
    const { o, pending } = await pendingOf(buildZip(data.map((d, i) => ({ name: `${i}.dcm`, data: d }))));
    const store = new StoreStage(o.run, { repo, storage: ctx.services.storage });
    await store.storeBatch(pending.slice(0, 1));
    expect(await store.keepWholeOrCopy()).toBeNull();
    expect(o.run.items.map((i) => i.storageKey)).toEqual([
      instanceKey(o.run.upload.id, pending[0]!.header.sopInstanceUid),
    ]);
    expect(await ctx.services.storage.stat(archiveKey(o.run.upload.id))).toBeNull();
  });

  it('stores batches one at a time, in order, and stops at the first failure', async () => {
    const { pending } = await pendingOf(buildZip(dicoms(1).map((d) => ({ name: 'a', data: d }))));
    const one = { ...pending[0]!, data: null };
    const seen: number[] = [];
    let running = 0;
    const queue = new BatchQueue(false, async (batch) => {
      expect(++running).toBe(1);
      await new Promise((r) => setTimeout(r, 5));
      seen.push(batch.length);
      running--;
    });
    for (let i = 0; i < 600; i++) queue.add(one);
    queue.flush();
    await queue.settled();
    queue.throwIfFailed();
    expect(seen).toEqual([256, 256, 88]);

    const failing = new BatchQueue(false, async () => {
      throw new Error('storage down');
    });
    for (let i = 0; i < 256; i++) failing.add(one);
    await failing.settled();
    // The next full batch (or the last one) is not handed on: the failure is thrown instead.
    failing.add(one);
    expect(() => failing.flush()).toThrow('storage down');
    expect(() => failing.throwIfFailed()).toThrow('storage down');
  });

  it('reconcile deletes what a run wrote and nothing indexes', async () => {
    const data = dicoms(2);
    const { o, pending } = await pendingOf(
      buildZip(data.map((d, i) => ({ name: `${i}.dcm`, data: d, method: 'deflate' as const }))),
    );
    await new StoreStage(o.run, { repo, storage: ctx.services.storage }).putEach(pending);
    const keys = o.run.items.map((i) => i.storageKey!);
    await reconcile({ repo, storage: ctx.services.storage }, o.run.upload.id);
    for (const key of keys) expect(await ctx.services.storage.stat(key)).toBeNull();
    expect(await repo.unindexedIntents(o.run.upload.id)).toEqual([]);
    // Safe to repeat.
    await reconcile({ repo, storage: ctx.services.storage }, o.run.upload.id);
  });
});
