import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  instances,
  notifications,
  studies,
  studyUploads,
  uploadObjects,
  users,
} from '../../../src/db/schema/index';
import type { JobDefinition } from '../../../src/jobs/queue';
import { archiveKey, instanceKey } from '../../../src/modules/ingest/storage-keys';
import { readInstance } from '../../../src/dicom-archive/instance-location';
import { createStudiesRepository } from '../../../src/modules/studies/studies.repository';
import {
  buildZip,
  listen,
  makeDicom,
  newPatient,
  storageToken,
  tusUpload,
  uid,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let base: string;
let ada: Patient;
let job: JobDefinition;

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-idem@example.com');
  job = ctx.services.jobs.find((j) => j.name === 'process-study')!;
});
afterAll(async () => {
  await ctx?.close();
});

const run = (upload: { id: string; objectName: string }) =>
  job.handler(
    { uploadId: upload.id, userId: ada.id, objectName: upload.objectName },
    { jobId: upload.id, log: ctx.services.log },
  );

/** An uploaded ZIP with a record, but no job queued: the test runs the handler itself. */
async function uploaded(files: Buffer[], method: 'store' | 'deflate') {
  const objectName = `${ada.id}/${randomUUID()}/study.zip`;
  const zip = buildZip(files.map((data, i) => ({ name: `f${i}.dcm`, data, method })));
  await tusUpload(base, await storageToken(ctx, ada), objectName, zip);
  const repo = createStudiesRepository(ctx.services.database.db);
  return (
    await repo.ensureUpload({ ownerId: ada.id, objectName, uploadType: 'regular', sizeBytes: zip.length })
  ).row;
}

async function snapshot() {
  const { db } = ctx.services.database;
  const keys: string[] = [];
  for await (const o of ctx.services.storage.list('dicom')) keys.push(o.key);
  const inst = await db.select().from(instances);
  return {
    studies: (await db.select().from(studies))
      .map((s) => [s.id, s.studyInstanceUid, s.instanceCount, s.sizeBytes])
      .sort(),
    instances: inst.map((i) => [i.sopInstanceUid, i.storageKey, i.sizeBytes, i.crc32]).sort(),
    objects: keys.sort(),
    indexedKeys: [...new Set(inst.map((i) => i.storageKey))].sort(),
    used: (await db.select().from(users).where(eq(users.id, ada.id)))[0]!.usedStorageBytes,
    intents: (await db.select().from(uploadObjects)).length,
  };
}

// Stored (uncompressed) entries, as browsers send them, keep the archive whole as the instances'
// storage; deflated ones are copied out file by file. Both must be idempotent.
describe.each([
  { method: 'store' as const, layout: 'the archive kept whole' },
  { method: 'deflate' as const, layout: 'one object per file' },
])('with $layout', ({ method }) => {
  it('a run that fails part-way leaves nothing; the retry completes; running again changes nothing', async () => {
    const before = await snapshot();
    const notesOf = async () =>
      (await ctx.services.database.db.select().from(notifications).where(eq(notifications.userId, ada.id)))
        .length;
    const notesBefore = await notesOf();
    const study = uid();
    const series = uid();
    const files = [1, 2, 3].map((n) =>
      makeDicom({ studyUid: study, seriesUid: series, sopUid: uid(), instanceNumber: n }),
    );
    const upload = await uploaded(files, method);

    // A file where the upload's object folder should be makes every write fail, as a broken disk would.
    const blocker = path.join(ctx.dataDir, 'storage', 'dicom', upload.id);
    await mkdir(path.dirname(blocker), { recursive: true });
    await writeFile(blocker, 'in the way');
    await expect(run(upload)).rejects.toThrow();
    await rm(blocker);
    expect(await snapshot()).toEqual(before);
    expect(await ctx.services.uploadArea.info(upload.objectName)).not.toBeNull();

    await run(upload);
    const done = await snapshot();
    expect(done.instances).toHaveLength(before.instances.length + 3);
    expect(done.objects).toEqual(done.indexedKeys);
    expect(done.objects.filter((k) => k.includes(upload.id))).toHaveLength(method === 'store' ? 1 : 3);
    expect(done.used).toBe(before.used + files.reduce((n, f) => n + f.length, 0));
    expect(done.intents).toBe(0);
    expect(await ctx.services.uploadArea.info(upload.objectName)).toBeNull();

    await run(upload);
    expect(await snapshot()).toEqual(done);
    expect(await notesOf()).toBe(notesBefore + 1);
  });

  it('a run killed after writing objects but before indexing is finished by the retry, with no orphans', async () => {
    const before = await snapshot();
    const study = uid();
    const series = uid();
    const sops = [uid(), uid()];
    const files = sops.map((sop, i) =>
      makeDicom({ studyUid: study, seriesUid: series, sopUid: sop, instanceNumber: i + 1 }),
    );
    const upload = await uploaded(files, method);

    // What a killed run leaves behind: the upload marked processing, keys recorded, objects written —
    // including one for a file it had not finished reading, and the archive linked but not indexed.
    const { db } = ctx.services.database;
    await db
      .update(studyUploads)
      .set({ status: 'processing', attempts: 1 })
      .where(eq(studyUploads.id, upload.id));
    const stray = instanceKey(upload.id, uid());
    const keys = [...sops.map((s) => instanceKey(upload.id, s)), stray, archiveKey(upload.id)];
    await db.insert(uploadObjects).values(keys.map((storageKey) => ({ uploadId: upload.id, storageKey })));
    await ctx.services.storage.put(keys[0]!, files[0]!);
    await ctx.services.storage.put(stray, Buffer.from('half-written'));
    await ctx.services.storage.adoptFile!(ctx.services.uploadArea.localPath!(upload.objectName), keys[3]!);

    await run(upload);
    const after = await snapshot();
    expect(after.instances).toHaveLength(before.instances.length + 2);
    expect(after.objects).toEqual(after.indexedKeys);
    expect(after.objects).not.toContain(stray);
    expect(after.used).toBe(before.used + files[0]!.length + files[1]!.length);
    expect(after.intents).toBe(0);
    const [row] = await db.select().from(studyUploads).where(eq(studyUploads.id, upload.id));
    expect(row!.status).toBe('completed');
    // Every instance reads back byte for byte from wherever it ended up.
    for (const [i, sop] of sops.entries()) {
      const [inst] = await db.select().from(instances).where(eq(instances.sopInstanceUid, sop));
      expect(await readInstance(ctx.services.storage, inst!)).toEqual(files[i]);
      expect(inst!.storageKey).toBe(method === 'store' ? archiveKey(upload.id) : instanceKey(upload.id, sop));
    }
  });
});

it('an archive that would mostly hold files already stored is not kept: its new instance is copied out', async () => {
  const study = uid();
  const series = uid();
  const files = [1, 2, 3, 4].map((n) =>
    makeDicom({ studyUid: study, seriesUid: series, sopUid: uid(), instanceNumber: n }),
  );
  const first = await uploaded(files.slice(0, 3), 'store');
  await run(first);
  const second = await uploaded(files, 'store');
  await run(second);
  const { db } = ctx.services.database;
  const rows = await db
    .select()
    .from(instances)
    .where(
      eq(
        instances.studyId,
        (await db.select().from(studies).where(eq(studies.studyInstanceUid, study)))[0]!.id,
      ),
    );
  expect(rows).toHaveLength(4);
  const keys = new Set(rows.map((r) => r.storageKey));
  expect(keys).toEqual(
    new Set([
      archiveKey(first.id),
      instanceKey(second.id, rows.find((r) => r.instanceNumber === 4)!.sopInstanceUid),
    ]),
  );
  expect(await ctx.services.storage.stat(archiveKey(second.id))).toBeNull();
  for (const r of rows)
    expect(await readInstance(ctx.services.storage, r)).toEqual(files[r.instanceNumber! - 1]);
});
