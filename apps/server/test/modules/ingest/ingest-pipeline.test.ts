import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instances, studies } from '../../../src/db/schema/index';
import { runIngest, type IngestDeps } from '../../../src/modules/ingest/ingest-pipeline';
import { archiveKey } from '../../../src/modules/ingest/storage-keys';
import { QuotaExceededError } from '../../../src/modules/accounts/quota';
import { createStudiesRepository } from '../../../src/modules/studies/studies.repository';
import { DEFAULT_ZIP_LIMITS } from '../../../src/dicom-archive/zip-reader';
import { silentLog } from '../../helpers/ingest-run';
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
let ada: Patient;
let deps: IngestDeps;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-pipeline@example.com');
  const { storage, uploadArea, users, config } = ctx.services;
  deps = {
    repo: createStudiesRepository(ctx.services.database.db),
    storage,
    uploadArea,
    users,
    defaultMaxStorageGB: config.defaultMaxStorageGB,
    limits: DEFAULT_ZIP_LIMITS,
  };
});
afterAll(async () => {
  await ctx?.close();
});

const series = (n: number, studyUid = uid(), seriesUid = uid()) =>
  Array.from({ length: n }, (_, i) => ({
    name: `S/${i}.dcm`,
    data: makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: i + 1, rows: 32, columns: 32 }),
  }));

/** Uploads the archive with tus, as the browser does, and creates its upload record. */
async function placeArchive(zip: Buffer) {
  const objectName = `${ada.id}/${randomUUID()}/study.zip`;
  await tusUpload(base, await storageToken(ctx, ada), objectName, zip);
  const { row } = await deps.repo.ensureUpload({
    ownerId: ada.id,
    objectName,
    uploadType: 'regular',
    sizeBytes: zip.length,
  });
  return { upload: row };
}

describe('ingest pipeline', () => {
  it('runs the stages over one archive: kept whole, duplicates and other files counted', async () => {
    const files = series(5);
    const zip = buildZip([
      ...files,
      { ...files[0]!, name: 'copy.dcm' },
      { name: 'a.txt', data: Buffer.from('x') },
    ]);
    const { upload } = await placeArchive(zip);
    await runIngest(deps, upload, silentLog);
    const done = await deps.repo.findUpload(upload.id);
    expect(done?.status).toBe('completed');
    expect(done?.summary).toMatchObject({ files: 7, instances: 5, unchanged: 0, skipped: 2 });
    expect(await ctx.services.storage.stat(archiveKey(upload.id))).not.toBeNull();

    // The same files again: indexed as they are, nothing stored.
    const again = await placeArchive(buildZip(files));
    await runIngest(deps, again.upload, silentLog);
    expect((await deps.repo.findUpload(again.upload.id))?.summary).toMatchObject({
      instances: 0,
      unchanged: 5,
    });
  });

  it.each([
    ['known before the index transaction', 0],
    ['known only while the index transaction waits, which is rolled back', 300],
  ])('copies the instances out when storage cannot adopt the archive: %s', async (_, delayMs) => {
    // As when the upload area and storage are on different file systems (no hard link across them).
    const storage = Object.create(deps.storage) as typeof deps.storage;
    storage.adoptFile = async () => {
      await new Promise((r) => setTimeout(r, delayMs));
      return null;
    };
    const files = series(3);
    const { upload } = await placeArchive(buildZip(files));
    await runIngest({ ...deps, storage }, upload, silentLog);
    const done = await deps.repo.findUpload(upload.id);
    expect(done?.status).toBe('completed');
    expect(done?.summary).toMatchObject({ files: 3, instances: 3 });
    expect(await ctx.services.storage.stat(archiveKey(upload.id))).toBeNull();
    const keys = await deps.repo.unindexedIntents(upload.id);
    expect(keys).toEqual([archiveKey(upload.id)]);
    const { db } = ctx.services.database;
    const stored = await db.select().from(instances).where(eq(instances.studyId, done!.studyIds![0]!));
    expect(stored).toHaveLength(3);
    expect(stored.every((i) => i.storageKey !== archiveKey(upload.id) && i.storageOffset === 0)).toBe(true);
  });

  it('indexes nothing when keeping the archive fails, however late', async () => {
    const storage = Object.create(deps.storage) as typeof deps.storage;
    storage.adoptFile = async () => {
      // Fails after the index transaction has written everything it would commit.
      await new Promise((r) => setTimeout(r, 300));
      throw new Error('disk full');
    };
    const studyUid = uid();
    const { upload } = await placeArchive(buildZip(series(3, studyUid)));
    await expect(runIngest({ ...deps, storage }, upload, silentLog)).rejects.toThrow('disk full');
    expect((await deps.repo.findUpload(upload.id))?.status).not.toBe('completed');
    const { db } = ctx.services.database;
    expect(await db.select().from(studies).where(eq(studies.studyInstanceUid, studyUid))).toEqual([]);
  });

  it('stops at the quota before indexing anything', async () => {
    const zip = buildZip(series(3));
    const { upload } = await placeArchive(zip);
    await expect(
      runIngest({ ...deps, defaultMaxStorageGB: 1 / 1024 ** 3 }, upload, silentLog),
    ).rejects.toBeInstanceOf(QuotaExceededError);
    expect((await deps.repo.findUpload(upload.id))?.status).not.toBe('completed');
  });
});
