import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents, instances, studies, users } from '../../../src/db/schema/index';
import type { JobDefinition } from '../../../src/jobs/queue';
import { createStudiesRepository } from '../../../src/modules/studies/studies.repository';
import {
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

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-delete@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

const db = () => ctx.services.database.db;
const repo = () => createStudiesRepository(db());
const usedBytes = async () =>
  (await db().select({ u: users.usedStorageBytes }).from(users).where(eq(users.id, ada.id)))[0]!.u;
const keysOf = async (studyId: string) =>
  (await db().select().from(instances).where(eq(instances.studyId, studyId))).map((i) => i.storageKey);
const listIds = async () => {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/studies/user/${ada.id}`, headers: ada.auth });
  return (res.json().data as Array<{ id: string }>).map((s) => s.id);
};
/** A processed study of `count` instances; returns its id. */
const newStudy = async (count = 20, studyUid = uid()) => {
  const seriesUid = uid();
  const files = Array.from({ length: count }, (_, i) => ({
    name: `${i}.dcm`,
    data: makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: i + 1 }),
  }));
  const { upload } = await uploadAndProcess(ctx, base, ada, buildZip(files));
  expect(upload.status).toBe('completed');
  return upload.studyIds![0]!;
};
const finishDeletes = () =>
  (ctx.services.jobs.find((j) => j.name === 'finish-deletes') as JobDefinition).handler(
    {},
    { jobId: randomUUID(), log: ctx.services.log },
  );

describe('study delete', () => {
  it('deletes every object in batches, frees the quota and audits', async () => {
    const before = await usedBytes();
    const id = await newStudy(40);
    const keys = await keysOf(id);
    expect(keys).toHaveLength(40);
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/studies/${ada.id}/${id}`,
      headers: ada.auth,
    });
    expect(del.statusCode).toBe(200);
    for (const k of keys) expect(await ctx.services.storage.stat(k)).toBeNull();
    expect(await usedBytes()).toBe(before);
    expect(await db().select().from(studies).where(eq(studies.id, id))).toEqual([]);
    const audits = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'study.delete'), eq(auditEvents.targetId, id)));
    expect(audits.map((a) => a.outcome)).toEqual(['success']);
  });

  it('a delete interrupted after it started is hidden at once and finished by repeating it', async () => {
    const before = await usedBytes();
    const id = await newStudy();
    const keys = await keysOf(id);
    // The state a crash leaves: marked, half of the objects gone, rows still there.
    expect(await repo().markDeleting(id, ada.id, new Date())).toBe(true);
    await ctx.services.storage.deleteMany(keys.slice(0, 10));

    expect(await listIds()).not.toContain(id);
    for (const url of [`/api/studies/study/${id}`, `/api/studies/${id}`, `/api/studies/download/${id}`]) {
      expect((await ctx.app.inject({ method: 'GET', url, headers: ada.auth })).statusCode, url).toBe(404);
    }
    const again = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/studies/${ada.id}/${id}`,
      headers: ada.auth,
    });
    expect(again.statusCode).toBe(200);
    for (const k of keys) expect(await ctx.services.storage.stat(k)).toBeNull();
    expect(await db().select().from(studies).where(eq(studies.id, id))).toEqual([]);
    expect(await usedBytes()).toBe(before);
  });

  it('finish-deletes completes stalled deletes and leaves recent ones to their request', async () => {
    const before = await usedBytes();
    const stalled = await newStudy();
    const recent = await newStudy();
    const stalledKeys = await keysOf(stalled);
    await repo().markDeleting(stalled, ada.id, new Date(Date.now() - 60 * 60 * 1000));
    await repo().markDeleting(recent, ada.id, new Date());
    await finishDeletes();
    expect(await db().select().from(studies).where(eq(studies.id, stalled))).toEqual([]);
    for (const k of stalledKeys) expect(await ctx.services.storage.stat(k)).toBeNull();
    expect(await db().select({ id: studies.id }).from(studies).where(eq(studies.id, recent))).toEqual([
      { id: recent },
    ]);
    // The request (here: its repetition) finishes the recent one.
    await ctx.app.inject({ method: 'DELETE', url: `/api/studies/${ada.id}/${recent}`, headers: ada.auth });
    expect(await usedBytes()).toBe(before);
  });

  it('a new upload of a study that is being deleted becomes a new study that the delete leaves alone', async () => {
    const studyUid = uid();
    const old = await newStudy(5, studyUid);
    await repo().markDeleting(old, ada.id, new Date(Date.now() - 60 * 60 * 1000));
    const fresh = await newStudy(5, studyUid);
    expect(fresh).not.toBe(old);
    const freshKeys = await keysOf(fresh);
    expect(freshKeys).toHaveLength(5);
    await finishDeletes();
    expect(await listIds()).toContain(fresh);
    for (const k of freshKeys) expect(await ctx.services.storage.stat(k)).not.toBeNull();
    const zip = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/download/${fresh}`,
      headers: ada.auth,
    });
    expect(zip.statusCode).toBe(200);
  });
  it('studies that arrived in one archive share it; deleting them together removes it once both are gone', async () => {
    const seriesFiles = (studyUid: string, from: number) =>
      Array.from({ length: 5 }, (_, i) => ({
        name: `${from + i}.dcm`,
        data: makeDicom({ studyUid, seriesUid: uid(), sopUid: uid(), instanceNumber: i + 1 }),
      }));
    const before = await usedBytes();
    const files = [...seriesFiles(uid(), 0), ...seriesFiles(uid(), 5)];
    const { upload } = await uploadAndProcess(ctx, base, ada, buildZip(files));
    expect(upload.studyIds).toHaveLength(2);
    const [a, b] = upload.studyIds!;
    const keys = new Set([...(await keysOf(a!)), ...(await keysOf(b!))]);
    expect(keys.size).toBe(1);
    const [archive] = [...keys];
    expect(await ctx.services.storage.stat(archive!)).not.toBeNull();

    const results = await Promise.all(
      [a, b].map((id) =>
        ctx.app.inject({ method: 'DELETE', url: `/api/studies/${ada.id}/${id}`, headers: ada.auth }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(await ctx.services.storage.stat(archive!)).toBeNull();
    expect(await usedBytes()).toBe(before);
  });
});
