import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  instances,
  notifications,
  studies,
  studyUploads,
  uploadObjects,
  users,
} from '../src/db/schema/index';
import type { JobDefinition } from '../src/jobs/queue';
import { instanceKey } from '../src/modules/studies/process-study.job';
import { createStudiesRepository } from '../src/modules/studies/studies.repository';
import {
  buildZip,
  listen,
  makeDicom,
  newPatient,
  storageToken,
  tusUpload,
  uid,
  type Patient,
} from './helpers/studies';
import { createTestContext, type TestContext } from './helpers/test-app';

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
async function uploaded(files: Buffer[]) {
  const objectName = `${ada.id}/${randomUUID()}/study.zip`;
  const zip = buildZip(files.map((data, i) => ({ name: `f${i}.dcm`, data })));
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
    indexedKeys: inst.map((i) => i.storageKey).sort(),
    used: (await db.select().from(users).where(eq(users.id, ada.id)))[0]!.usedStorageBytes,
    intents: (await db.select().from(uploadObjects)).length,
  };
}

it('a run that fails part-way leaves nothing; the retry completes; running again changes nothing', async () => {
  const study = uid();
  const series = uid();
  const files = [1, 2, 3].map((n) =>
    makeDicom({ studyUid: study, seriesUid: series, sopUid: uid(), instanceNumber: n }),
  );
  const upload = await uploaded(files);

  // A file where the object folder should be makes every write fail, as a broken disk would.
  const blocker = path.join(ctx.dataDir, 'storage', 'dicom');
  await mkdir(path.dirname(blocker), { recursive: true });
  await writeFile(blocker, 'in the way');
  await expect(run(upload)).rejects.toThrow();
  await rm(blocker);
  const afterFailure = await snapshot();
  expect(afterFailure).toMatchObject({ studies: [], instances: [], objects: [], used: 0, intents: 0 });
  expect(await ctx.services.uploadArea.info(upload.objectName)).not.toBeNull();

  await run(upload);
  const done = await snapshot();
  expect(done.instances).toHaveLength(3);
  expect(done.objects).toEqual(done.indexedKeys);
  expect(done.used).toBe(files.reduce((n, f) => n + f.length, 0));
  expect(done.intents).toBe(0);
  expect(await ctx.services.uploadArea.info(upload.objectName)).toBeNull();

  await run(upload);
  expect(await snapshot()).toEqual(done);
  const notes = await ctx.services.database.db
    .select()
    .from(notifications)
    .where(eq(notifications.userId, ada.id));
  expect(notes).toHaveLength(1);
});

it('a run killed after writing objects but before indexing is finished by the retry, with no orphans', async () => {
  const before = await snapshot();
  const study = uid();
  const series = uid();
  const sops = [uid(), uid()];
  const files = sops.map((sop, i) =>
    makeDicom({ studyUid: study, seriesUid: series, sopUid: sop, instanceNumber: i + 1 }),
  );
  const upload = await uploaded(files);

  // What a killed run leaves behind: the upload marked processing, keys recorded, objects written —
  // including one for a file it had not finished reading.
  const { db } = ctx.services.database;
  await db
    .update(studyUploads)
    .set({ status: 'processing', attempts: 1 })
    .where(eq(studyUploads.id, upload.id));
  const stray = instanceKey(upload.id, uid());
  const keys = [...sops.map((s) => instanceKey(upload.id, s)), stray];
  await db.insert(uploadObjects).values(keys.map((storageKey) => ({ uploadId: upload.id, storageKey })));
  await ctx.services.storage.put(keys[0]!, files[0]!);
  await ctx.services.storage.put(stray, Buffer.from('half-written'));

  await run(upload);
  const after = await snapshot();
  expect(after.instances).toHaveLength(before.instances.length + 2);
  expect(after.objects).toEqual(after.indexedKeys);
  expect(after.objects).not.toContain(stray);
  expect(after.used).toBe(before.used + files[0]!.length + files[1]!.length);
  expect(after.intents).toBe(0);
  const [row] = await db.select().from(studyUploads).where(eq(studyUploads.id, upload.id));
  expect(row!.status).toBe('completed');
});
