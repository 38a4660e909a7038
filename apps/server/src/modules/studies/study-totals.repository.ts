import { inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, series, studies } from '../../db/schema/index';

/** Series' instance counts, then the studies' totals, after an ingest. */
export async function refreshAggregates(db: Db, studyIds: string[]): Promise<void> {
  if (studyIds.length === 0) return;
  await db
    .update(series)
    .set({ instanceCount: sql`(select count(*)::int from ${instances} i where i.series_id = ${series.id})` })
    .where(inArray(series.studyId, studyIds));
  await refreshStudyTotals(db, studyIds, {
    bodyPart: sql`coalesce(${studies.bodyPart}, (select s.body_part from ${series} s where s.study_id = ${studies.id} and s.body_part is not null limit 1))`,
  });
}

/**
 * Recomputes studies' totals (series, instances, bytes, modalities) from their series and
 * instances rows: the one place they are written, for ingest (study-ingest.repository.ts) and delivered reports
 * (modules/fulfilment). `also` sets other columns in the same statement. Runs in the caller's
 * transaction.
 */
export async function refreshStudyTotals(
  tx: Pick<Db, 'update'>,
  studyIds: string[],
  also: { bodyPart?: SQL; updatedAt?: Date } = {},
): Promise<void> {
  if (studyIds.length === 0) return;
  await tx
    .update(studies)
    .set({
      seriesCount: sql`(select count(*)::int from ${series} s where s.study_id = ${studies.id})`,
      instanceCount: sql`(select count(*)::int from ${instances} i where i.study_id = ${studies.id})`,
      sizeBytes: sql`(select coalesce(sum(i.size_bytes), 0)::bigint from ${instances} i where i.study_id = ${studies.id})`,
      modalities: sql`(select coalesce(array_agg(distinct s.modality order by s.modality) filter (where s.modality is not null), '{}'::text[]) from ${series} s where s.study_id = ${studies.id})`,
      ...also,
    })
    .where(inArray(studies.id, studyIds));
}
