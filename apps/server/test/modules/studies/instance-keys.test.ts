import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instances, series, studies } from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, newPatient, uid } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

// What the database itself keeps right about an instance's parents (instances_series_study_fk).
describe('instance keys', () => {
  let ctx: TestContext;
  const db = () => ctx.services.database.db;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  /** What the database answered to a write, by the constraint it names (the driver's error, under the query's). */
  const refusal = (write: Promise<unknown>) =>
    write.then(
      () => 'written',
      (err: { cause?: unknown }) => String(err.cause ?? err),
    );

  async function study(ownerId: string) {
    const studyUid = uid();
    const seriesUid = uid();
    const files = [1, 2].map((n) => makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: n }));
    const [id] = await ingestFiles(ctx, ownerId, files);
    const [row] = await db().select().from(series).where(eq(series.studyId, id!));
    return { id: id!, seriesId: row!.id };
  }

  it("refuses an instance whose series is another study's, and removes a study's instances with it", async () => {
    const owner = await newPatient(ctx, 'instance-keys@example.com');
    const a = await study(owner.id);
    const b = await study(owner.id);
    const [template] = await db().select().from(instances).where(eq(instances.studyId, a.id)).limit(1);
    const { id: _id, createdAt: _at, ...row } = template!;
    // Study A's row pointing at study B's series: the series is real, but not this study's.
    expect(
      await refusal(
        db()
          .insert(instances)
          .values({ ...row, sopInstanceUid: uid(), seriesId: b.seriesId, storageOffset: 999_999 }),
      ),
    ).toMatch(/instances_series_study_fk/);
    // A series that does not exist at all.
    expect(
      await refusal(
        db()
          .insert(instances)
          .values({ ...row, sopInstanceUid: uid(), seriesId: crypto.randomUUID(), storageOffset: 999_998 }),
      ),
    ).toMatch(/instances_series_study_fk/);
    expect(await db().select().from(instances).where(eq(instances.studyId, a.id))).toHaveLength(2);

    // Deleting the study row takes its series and, through them, its instances.
    await db().delete(studies).where(eq(studies.id, a.id));
    expect(await db().select().from(instances).where(eq(instances.studyId, a.id))).toEqual([]);
    expect(await db().select().from(instances).where(eq(instances.studyId, b.id))).toHaveLength(2);
  });
});
