import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { notifications, studies, studyUploads } from '../../../src/db/schema/index';
import { JOB_SCHEMA, type JobDefinition } from '../../../src/jobs/queue';
import { MAX_RUNS } from '../../../src/modules/ingest/sweep-uploads.job';
import {
  FIXTURES,
  buildZip,
  listen,
  newPatient,
  storageToken,
  tusUpload,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

// About 1.8 s, so expiry can be waited for instead of faked.
const EXPIRY_HOURS = 0.0005;

let ctx: TestContext;
let base: string;
let ada: Patient;
const zip = buildZip([{ name: 'CT_small.dcm', data: readFileSync(`${FIXTURES}/CT_small.dcm`) }]);

beforeAll(async () => {
  ctx = await createTestContext({ UPLOAD_EXPIRY_HOURS: String(EXPIRY_HOURS) });
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-sweep@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

const sweepJob = () => ctx.services.jobs.find((j) => j.name === 'sweep-uploads') as JobDefinition;
const sweep = () => sweepJob().handler({}, { jobId: randomUUID(), log: ctx.services.log });
const upload = async (name: string) => {
  const [row] = await ctx.services.database.db
    .select()
    .from(studyUploads)
    .where(eq(studyUploads.objectName, name));
  return row;
};
const newName = () => `${ada.id}/${randomUUID()}/study.zip`;
const startUnfinished = async (objectName: string) => {
  const res = await fetch(`${base}/api/uploads`, {
    method: 'POST',
    headers: {
      'tus-resumable': '1.0.0',
      'upload-length': '1000',
      'upload-metadata': `objectName ${Buffer.from(objectName).toString('base64')}`,
      authorization: `Bearer ${await storageToken(ctx, ada)}`,
    },
  });
  expect(res.status).toBe(201);
};
/** The state a crash leaves: the upload is recorded, its job never queued (or lost), long ago. */
const recordLost = async (objectName: string, extra: Partial<typeof studyUploads.$inferInsert> = {}) => {
  await ctx.services.database.db.insert(studyUploads).values({
    ownerId: ada.id,
    objectName,
    sizeBytes: zip.length,
    createdAt: new Date(Date.now() - 60 * 60 * 1000),
    ...extra,
  });
};

describe('sweep-uploads', () => {
  it('is scheduled with pg-boss', async () => {
    const res = await ctx.services.database.sql.executeSql(
      `select cron from ${JOB_SCHEMA}.schedule where name = $1`,
      ['sweep-uploads'],
    );
    expect(res.rows).toEqual([{ cron: '*/15 * * * *' }]);
  });

  it('removes expired unfinished uploads and finished ones nobody asked to process, and keeps the rest', async () => {
    const unfinished = newName();
    const unclaimed = newName();
    const claimed = newName();
    await startUnfinished(unfinished);
    const token = await storageToken(ctx, ada);
    await tusUpload(base, token, unclaimed, zip);
    await tusUpload(base, token, claimed, zip);
    await ctx.services.database.db
      .insert(studyUploads)
      .values({ ownerId: ada.id, objectName: claimed, sizeBytes: zip.length });

    await sweep();
    // Not expired yet.
    for (const name of [unfinished, unclaimed, claimed])
      expect(await ctx.services.uploadArea.info(name), name).not.toBeNull();

    await new Promise((r) => setTimeout(r, EXPIRY_HOURS * 3600 * 1000 + 200));
    const fresh = newName();
    await startUnfinished(fresh);
    await sweep();
    expect(await ctx.services.uploadArea.info(unfinished)).toBeNull();
    expect(await ctx.services.uploadArea.info(unclaimed)).toBeNull();
    expect(await ctx.services.uploadArea.info(claimed)).not.toBeNull();
    expect(await ctx.services.uploadArea.info(fresh)).not.toBeNull();
    // Resuming an expired upload is refused like a missing one.
    const head = await fetch(`${base}/api/uploads/${unfinished}`, {
      method: 'HEAD',
      headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${await storageToken(ctx, ada)}` },
    });
    expect(head.status).toBe(404);
    await ctx.services.database.db.delete(studyUploads).where(eq(studyUploads.objectName, claimed));
  });

  it('re-drives an upload whose job was never queued or was lost, through the scheduled job itself', async () => {
    const neverQueued = newName();
    const lostJob = newName();
    const token = await storageToken(ctx, ada);
    await tusUpload(base, token, neverQueued, zip);
    await tusUpload(base, token, lostJob, zip);
    await recordLost(neverQueued);
    await recordLost(lostJob, { status: 'processing', attempts: 1, jobId: randomUUID() });
    // A recent upload whose job is not live yet is left alone: it may just be starting.
    const recent = newName();
    await ctx.services.database.db
      .insert(studyUploads)
      .values({ ownerId: ada.id, objectName: recent, sizeBytes: 1 });

    await ctx.services.queue.send(sweepJob(), {});
    for (const name of [neverQueued, lostJob]) {
      const row = await eventually(async () => {
        const r = await upload(name);
        return r?.status === 'completed' ? r : undefined;
      }, 30_000);
      expect(row.studyIds).toHaveLength(1);
      // The archive goes right after the indexing commit, so it may outlive the status by a moment.
      await eventually(async () => ((await ctx.services.uploadArea.info(name)) === null ? true : undefined));
    }
    expect((await upload(recent))!).toMatchObject({ status: 'queued', jobId: null });
    const listed = await ctx.services.database.db.select().from(studies).where(eq(studies.ownerId, ada.id));
    expect(listed).toHaveLength(1);

    // A second sweep finds nothing more to do.
    const before = await upload(lostJob);
    await sweep();
    expect(await upload(lostJob)).toEqual(before);
    await ctx.services.database.db.delete(studyUploads).where(eq(studyUploads.objectName, recent));
  });

  it('gives up on an upload lost too many times: failed, owner told, archive removed', async () => {
    const name = newName();
    await tusUpload(base, await storageToken(ctx, ada), name, zip);
    await recordLost(name, { status: 'processing', attempts: MAX_RUNS, jobId: randomUUID() });
    await sweep();
    const row = (await upload(name))!;
    expect(row.status).toBe('failed');
    expect(row.reason).toMatch(/error on our side/);
    expect(await ctx.services.uploadArea.info(name)).toBeNull();
    const notes = await ctx.services.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.userId, ada.id));
    expect(notes.some((n) => n.title === 'Upload could not be processed')).toBe(true);
  });
});
