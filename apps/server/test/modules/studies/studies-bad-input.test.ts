import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desc, eq } from 'drizzle-orm';
import { notifications, studies, uploadObjects, users } from '../../../src/db/schema/index';
import {
  FIXTURES,
  buildZip,
  listen,
  makeDicom,
  newPatient,
  uid,
  uploadAndProcess,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let base: string;
let ada: Patient;
const mr = readFileSync(`${FIXTURES}/MR_small.dcm`);

beforeAll(async () => {
  ctx = await createTestContext({ UPLOAD_MAX_ENTRIES: '50' });
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-bad@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

/** Every refused upload leaves nothing behind: no study, no object, no quota, no upload file. */
async function expectRefused(zip: Buffer, reason: RegExp) {
  const { upload, objectName } = await uploadAndProcess(ctx, base, ada, zip);
  expect(upload.status).toBe('failed');
  expect(upload.reason).toMatch(reason);
  const { db } = ctx.services.database;
  expect(await db.select().from(studies).where(eq(studies.ownerId, ada.id))).toEqual([]);
  const objects: string[] = [];
  for await (const o of ctx.services.storage.list('dicom')) objects.push(o.key);
  expect(objects).toEqual([]);
  expect(await db.select().from(uploadObjects)).toEqual([]);
  const [owner] = await db.select().from(users).where(eq(users.id, ada.id));
  expect(owner!.usedStorageBytes).toBe(0);
  expect(await ctx.services.uploadArea.info(objectName)).toBeNull();
  const [note] = await db
    .select()
    .from(notifications)
    .where(eq(notifications.userId, ada.id))
    .orderBy(desc(notifications.createdAt))
    .limit(1);
  expect(note!.description).toBe(upload.reason);
  return upload;
}

describe('bad uploads get a clear reason and leave nothing behind', () => {
  it('a ZIP with ../ entries', async () => {
    await expectRefused(
      buildZip([
        { name: 'ok.dcm', data: mr },
        { name: '../../etc/evil.dcm', data: mr },
      ]),
      /unsafe path \(parent directory reference\)/,
    );
  });

  it('a ZIP with an absolute path or a Windows drive path', async () => {
    await expectRefused(buildZip([{ name: '/etc/passwd', data: mr }]), /unsafe path \(absolute path\)/);
    await expectRefused(buildZip([{ name: 'C:\\x\\a.dcm', data: mr }]), /unsafe path \(absolute path\)/);
  });

  it('a ZIP with a symbolic link', async () => {
    await expectRefused(
      buildZip([{ name: 'link.dcm', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]),
      /symbolic link/,
    );
  });

  it('a ZIP bomb', async () => {
    const zeros = Buffer.alloc(20 * 1024 * 1024);
    await expectRefused(buildZip([{ name: 'bomb.dcm', data: zeros, method: 'deflate' }]), /ZIP bomb/);
  });

  it('a ZIP with too many entries', async () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.from('x') }));
    await expectRefused(buildZip(many), /51 entries; at most 50/);
  });

  it('a ZIP of non-DICOM files, and a nested archive', async () => {
    await expectRefused(
      buildZip([
        { name: 'notes.txt', data: Buffer.from('hello') },
        { name: 'inner.gz', data: readFileSync(`${FIXTURES}/zipMR.gz`) },
        { name: 'inner.zip', data: buildZip([{ name: 'a.dcm', data: mr }]) },
      ]),
      // Each reason names its files, so the user can find them.
      /^No DICOM images were found in your upload\. 3 files were skipped \(1 file: not a DICOM file — notes\.txt; 2 files: nested archive \(not opened\) — inner\.gz, inner\.zip\)\.$/,
    );
  });

  it('a truncated ZIP', async () => {
    const zip = buildZip([{ name: 'a.dcm', data: mr }]);
    await expectRefused(zip.subarray(0, zip.length - 30), /not a complete ZIP archive/);
  });

  it('an empty file', async () => {
    await expectRefused(Buffer.alloc(0), /not a complete ZIP archive/);
  });

  it('a truncated DICOM file inside a valid ZIP', async () => {
    await expectRefused(
      buildZip([{ name: 'cut.dcm', data: mr.subarray(0, 4000) }]),
      /No DICOM images were found in your upload\. 1 file was skipped \(1 file: truncated or malformed DICOM file — cut\.dcm\)/,
    );
  });

  it('an upload over the quota, checked when processing', async () => {
    const { db } = ctx.services.database;
    await db
      .update(users)
      .set({ maxStorageBytes: mr.length - 1 })
      .where(eq(users.id, ada.id));
    try {
      // Compressed, the ZIP fits the quota (so the upload is accepted); its content does not.
      const zip = buildZip([{ name: 'a.dcm', data: mr, method: 'deflate' }]);
      expect(zip.length).toBeLessThan(mr.length - 1);
      await expectRefused(zip, /^Storage Limit Exceeded/);
    } finally {
      await db.update(users).set({ maxStorageBytes: null }).where(eq(users.id, ada.id));
    }
  });

  it('skips a malformed file but keeps the good ones', async () => {
    const study = uid();
    const good = makeDicom({ studyUid: study, seriesUid: uid(), sopUid: uid() });
    const { upload } = await uploadAndProcess(
      ctx,
      base,
      ada,
      buildZip([
        { name: 'good.dcm', data: good },
        { name: 'bad.dcm', data: good.subarray(0, 300) },
      ]),
    );
    expect(upload.status).toBe('completed');
    expect(upload.summary).toMatchObject({
      instances: 1,
      skipped: 1,
      skipReasons: { 'truncated or malformed DICOM file': 1 },
    });
    const [note] = await ctx.services.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.userId, ada.id))
      .orderBy(desc(notifications.createdAt))
      .limit(1);
    expect(note!.description).toBe(
      'Your upload has been processed: 1 study with 1 image is ready in My Studies. 1 file was skipped (1 file: truncated or malformed DICOM file — bad.dcm).',
    );
  });
});
