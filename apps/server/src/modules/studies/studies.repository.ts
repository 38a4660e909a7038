import { and, desc, eq, getTableColumns, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, orderFulfilments, orders, studies, studyListVersions } from '../../db/schema/index';
import { adjustStorageUse } from '../accounts';
import { createStudyIngestRepository } from './study-ingest.repository';
import { createStudyInstancesRepository } from './study-instances.repository';
import { createStudyUploadsRepository, createUploadObjectsRepository } from './study-uploads.repository';

export type StudyRow = typeof studies.$inferSelect;
export type { NewNotification, UploadRow } from './study-uploads.repository';
export type { IndexedInstance } from './study-ingest.repository';
export { refreshStudyTotals } from './study-totals.repository';
export { QuotaExceededError } from '../accounts';

/** Study rows: reading them, the owner's list and its version, and deleting a study. */
export function createStudyRowsRepository(db: Db) {
  return {
    async findStudy(id: string): Promise<StudyRow | undefined> {
      const [row] = await db.select().from(studies).where(eq(studies.id, id)).limit(1);
      return row;
    },
    /** Moves on every change to the owner's studies (see study_list_versions). */
    async listVersion(ownerId: string): Promise<number> {
      const [row] = await db
        .select({ version: studyListVersions.version })
        .from(studyListVersions)
        .where(eq(studyListVersions.ownerId, ownerId));
      return row?.version ?? 0;
    },
    /** With the date its latest analysis order completed (Latest Completion). */
    async listCompleted(ownerId: string): Promise<Array<StudyRow & { latestCompletedAt: Date | null }>> {
      return db
        .select({
          ...getTableColumns(studies),
          latestCompletedAt: sql<Date | null>`(select max(f.completed_at) from ${orderFulfilments} f
            join ${orders} o on o.id = f.order_id
            where o.study_id = ${studies}.id and o.status = 'completed')`.mapWith(
            orderFulfilments.completedAt,
          ),
        })
        .from(studies)
        .where(
          and(
            eq(studies.ownerId, ownerId),
            eq(studies.processStatus, 'completed'),
            isNull(studies.deletingSince),
          ),
        )
        .orderBy(desc(studies.createdAt), desc(studies.id));
    },
    deidentifiedCopiesOf: (ownerId: string, sourceStudyIds: string[]) =>
      deidentifiedCopiesOf(db, ownerId, sourceStudyIds),
    /** Starts a delete: from now on the study is hidden from every reader. False when it is not the owner's. */
    async markDeleting(studyId: string, ownerId: string, now: Date): Promise<boolean> {
      const [row] = await db
        .update(studies)
        .set({ deletingSince: sql`coalesce(${studies.deletingSince}, ${now})` })
        .where(and(eq(studies.id, studyId), eq(studies.ownerId, ownerId)))
        .returning({ id: studies.id });
      return Boolean(row);
    },
    /** Deletes that started before `olderThan` and never finished. */
    async unfinishedDeletes(olderThan: Date): Promise<Array<{ id: string; ownerId: string }>> {
      return db
        .select({ id: studies.id, ownerId: studies.ownerId })
        .from(studies)
        .where(lt(studies.deletingSince, olderThan))
        .limit(500);
    },
    /** Deletes the study row (series and instances cascade) and frees its bytes from the owner's quota. */
    async deleteStudy(studyId: string, ownerId: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .select({ id: studies.id })
          .from(studies)
          .where(and(eq(studies.id, studyId), eq(studies.ownerId, ownerId)))
          .for('update');
        if (!row) return false;
        const [sum] = await tx
          .select({ bytes: sql<string>`coalesce(sum(${instances.sizeBytes}), 0)` })
          .from(instances)
          .where(eq(instances.studyId, studyId));
        await tx.delete(studies).where(eq(studies.id, studyId));
        const bytes = Number(sum?.bytes ?? 0);
        if (bytes > 0) await adjustStorageUse(tx, ownerId, -bytes);
        return true;
      });
    },
  };
}

/**
 * Data access for studies, their series and instances, uploads being processed, and their objects:
 * the table-by-table repositories (study-uploads, study-instances, study-ingest and the study rows
 * above) as one.
 */
export function createStudiesRepository(db: Db) {
  return {
    ...createStudyUploadsRepository(db),
    ...createUploadObjectsRepository(db),
    ...createStudyInstancesRepository(db),
    ...createStudyIngestRepository(db),
    ...createStudyRowsRepository(db),
  };
}
export type StudiesRepository = ReturnType<typeof createStudiesRepository>;

/**
 * The owner's newest finished de-identified copy of each source study (made without PDF reports),
 * so sharing one de-identified again reuses it instead of filling My Studies with copies; a source
 * that is itself a de-identified copy maps to itself.
 */
async function deidentifiedCopiesOf(
  db: Db,
  ownerId: string,
  sourceStudyIds: string[],
): Promise<Map<string, string>> {
  if (sourceStudyIds.length === 0) return new Map();
  const source = sql<string>`${studies.deidentification}->>'sourceStudyId'`;
  const madeWithoutReports = sql`coalesce((${studies.deidentification}->>'includePdfReports')::boolean, false) = false`;
  const rows = await db
    .select({ id: studies.id, source })
    .from(studies)
    .where(
      and(
        eq(studies.ownerId, ownerId),
        eq(studies.deidentified, true),
        eq(studies.processStatus, 'completed'),
        isNull(studies.deletingSince),
        or(inArray(studies.id, sourceStudyIds), and(inArray(source, sourceStudyIds), madeWithoutReports)),
      ),
    )
    .orderBy(desc(studies.createdAt), desc(studies.id));
  const asked = new Set(sourceStudyIds);
  const copies = new Map<string, string>();
  // A study that is itself a de-identified copy is shared as it is, never copied again.
  for (const r of rows) if (asked.has(r.id)) copies.set(r.id, r.id);
  for (const r of rows) if (!asked.has(r.id) && !copies.has(r.source)) copies.set(r.source, r.id);
  return copies;
}
