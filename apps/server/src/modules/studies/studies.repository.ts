import { and, desc, eq, getTableColumns, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { instanceReadingOrder } from '../../db/reading-order';
import {
  instances,
  notifications,
  orderFulfilments,
  orders,
  series,
  studies,
  studyListVersions,
  studyUploads,
  uploadObjects,
  users,
} from '../../db/schema/index';
import type { InstanceHeader } from '../../dicom-archive/dicom-header';
import { adjustStorageUse, quotaOf, requireWithinQuota } from '../accounts';

export type StudyRow = typeof studies.$inferSelect;
export type UploadRow = typeof studyUploads.$inferSelect;
export type NewNotification = Omit<typeof notifications.$inferInsert, 'id'>;

/** One instance ready to be indexed; `storageKey` null means "already stored unchanged, index nothing". */
export interface IndexedInstance {
  header: InstanceHeader;
  sizeBytes: number;
  crc32: number;
  storageKey: string | null;
  /** Where the file starts inside the object (an archive kept whole); 0 or absent for its own object. */
  storageOffset?: number;
}

export { QuotaExceededError } from '../accounts';

const CHUNK = 500;
function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * `column = any(values)` with one parameter, a JSON array, instead of one parameter per value (the
 * query builder's `inArray`): upload batches name hundreds to thousands of instances, and building
 * and binding that many parameters cost more than the lookup itself. The array is computed once
 * (an init plan), so the column's indexes are used as with a literal list.
 */
function inTextList(column: AnyPgColumn, values: string[]): SQL {
  return sql`${column} = any(array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)))`;
}

/**
 * Inserts instance rows with one statement and one parameter, a JSON array: built by the query builder
 * as a multi-row VALUES list (11 parameters a row), a 300-slice series cost about 60 ms of CPU before
 * the database saw it, and more in the driver's handling of 3,300 parameters.
 */
async function insertInstances(db: Db, rows: Array<typeof instances.$inferInsert>): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(
    rows.map((r) => ({
      study_id: r.studyId,
      series_id: r.seriesId,
      sop_instance_uid: r.sopInstanceUid,
      sop_class_uid: r.sopClassUid ?? null,
      instance_number: r.instanceNumber ?? null,
      transfer_syntax_uid: r.transferSyntaxUid ?? null,
      size_bytes: r.sizeBytes,
      crc32: r.crc32,
      storage_key: r.storageKey,
      storage_offset: r.storageOffset ?? 0,
    })),
  );
  await db.execute(sql`
    insert into ${instances} (study_id, series_id, sop_instance_uid, sop_class_uid, instance_number,
      transfer_syntax_uid, size_bytes, crc32, storage_key, storage_offset)
    select study_id, series_id, sop_instance_uid, sop_class_uid, instance_number,
      transfer_syntax_uid, size_bytes, crc32, storage_key, storage_offset
    from jsonb_to_recordset(${json}::jsonb) as r(study_id uuid, series_id uuid, sop_instance_uid text,
      sop_class_uid text, instance_number integer, transfer_syntax_uid text, size_bytes bigint,
      crc32 bigint, storage_key text, storage_offset bigint)`);
}

/** Data access for studies, their series and instances, uploads being processed, and their objects. */
export function createStudiesRepository(db: Db) {
  return {
    // --- uploads ---------------------------------------------------------------------------
    async findUploadByObjectName(objectName: string): Promise<UploadRow | undefined> {
      const [row] = await db
        .select()
        .from(studyUploads)
        .where(eq(studyUploads.objectName, objectName))
        .limit(1);
      return row;
    },
    async findUpload(id: string): Promise<UploadRow | undefined> {
      const [row] = await db.select().from(studyUploads).where(eq(studyUploads.id, id)).limit(1);
      return row;
    },
    /** Creates the upload record unless one exists for this object; returns the row either way. */
    async ensureUpload(values: {
      ownerId: string;
      objectName: string;
      uploadType: 'regular' | 'shared';
      sizeBytes: number;
      /** Who sent the files; for a shared upload the invitee (ownerId is the inviter). */
      uploadedBy?: string;
      invitationId?: string;
    }): Promise<{ row: UploadRow; created: boolean }> {
      const [row] = await db
        .insert(studyUploads)
        .values(values)
        .onConflictDoNothing({ target: studyUploads.objectName })
        .returning();
      if (row) return { row, created: true };
      const existing = await this.findUploadByObjectName(values.objectName);
      if (!existing) throw new Error('upload record vanished');
      return { row: existing, created: false };
    },
    async setUploadJob(id: string, jobId: string): Promise<void> {
      await db.update(studyUploads).set({ jobId }).where(eq(studyUploads.id, id));
    },
    async markProcessing(id: string): Promise<number> {
      const [row] = await db
        .update(studyUploads)
        .set({ status: 'processing', attempts: sql`${studyUploads.attempts} + 1` })
        .where(eq(studyUploads.id, id))
        .returning({ attempts: studyUploads.attempts });
      return row?.attempts ?? 0;
    },
    async setUploadSummary(id: string, summary: Record<string, unknown>): Promise<void> {
      await db.update(studyUploads).set({ summary }).where(eq(studyUploads.id, id));
    },
    /** Marks the upload failed and leaves the owner (and a shared upload's sender) a notification, in one transaction. */
    async failUpload(
      id: string,
      reason: string,
      summary: Record<string, unknown>,
      notification: NewNotification | NewNotification[],
    ): Promise<void> {
      await db.transaction(async (tx) => {
        const [row] = await tx
          .update(studyUploads)
          .set({ status: 'failed', reason, summary, finishedAt: new Date() })
          .where(and(eq(studyUploads.id, id), inArray(studyUploads.status, ['queued', 'processing'])))
          .returning({ id: studyUploads.id });
        if (row) await tx.insert(notifications).values([notification].flat());
      });
    },

    // --- objects a run writes ----------------------------------------------------------------
    async recordIntents(uploadId: string, keys: string[]): Promise<void> {
      for (const part of chunks(keys)) {
        await db
          .insert(uploadObjects)
          .values(part.map((storageKey) => ({ uploadId, storageKey })))
          .onConflictDoNothing();
      }
    },
    /** Objects this upload wrote (or replaced) that no instance references. */
    async unindexedIntents(uploadId: string): Promise<string[]> {
      const rows = await db
        .select({ key: uploadObjects.storageKey })
        .from(uploadObjects)
        .where(
          and(
            eq(uploadObjects.uploadId, uploadId),
            sql`not exists (select 1 from ${instances} i where i.storage_key = ${uploadObjects.storageKey})`,
          ),
        );
      return rows.map((r) => r.key);
    },
    async clearIntents(uploadId: string): Promise<void> {
      await db.delete(uploadObjects).where(eq(uploadObjects.uploadId, uploadId));
    },
    /** Uploads left queued or processing by a run that died long ago. */
    async staleUploads(olderThan: Date): Promise<UploadRow[]> {
      return db
        .select()
        .from(studyUploads)
        .where(
          and(
            inArray(studyUploads.status, ['queued', 'processing']),
            sql`${studyUploads.createdAt} < ${olderThan}`,
          ),
        );
    },

    /** Already indexed instances of this owner with these (study, SOP) UIDs. */
    async existingInstances(ownerId: string, pairs: Array<{ studyUid: string; sopUid: string }>) {
      if (pairs.length === 0) return [];
      const sops = [...new Set(pairs.map((p) => p.sopUid))];
      return db
        .select({
          studyUid: studies.studyInstanceUid,
          sopUid: instances.sopInstanceUid,
          sizeBytes: instances.sizeBytes,
          crc32: instances.crc32,
          storageKey: instances.storageKey,
        })
        .from(instances)
        .innerJoin(studies, eq(studies.id, instances.studyId))
        .where(
          and(
            eq(studies.ownerId, ownerId),
            isNull(studies.deletingSince),
            inTextList(instances.sopInstanceUid, sops),
          ),
        );
    },

    /**
     * Indexes everything one upload brought, charges the quota and completes the upload, all in one
     * transaction: either the studies appear whole or nothing changes. The owner's row is locked so
     * concurrent uploads of one user are charged one after the other.
     */
    async commitIngest(p: {
      uploadId: string;
      ownerId: string;
      defaultMaxBytes: number;
      items: IndexedInstance[];
      summary: Record<string, unknown>;
      notification: (result: {
        studyIds: string[];
        chargedBytes: number;
      }) => NewNotification | NewNotification[];
    }): Promise<{ studyIds: string[]; chargedBytes: number }> {
      return db.transaction(async (tx) => {
        const [owner] = await tx
          .select({ used: users.usedStorageBytes, max: users.maxStorageBytes })
          .from(users)
          .where(eq(users.id, p.ownerId))
          .for('update');
        if (!owner) throw new Error('owner not found');

        const studyIdByUid = new Map<string, string>();
        const seriesIdByKey = new Map<string, string>();
        const now = new Date();
        for (const item of p.items) {
          const h = item.header;
          if (!studyIdByUid.has(h.studyInstanceUid)) {
            const [row] = await tx
              .insert(studies)
              .values({
                ownerId: p.ownerId,
                studyInstanceUid: h.studyInstanceUid,
                patientName: h.patientName,
                patientId: h.patientId,
                patientBirthDate: h.patientBirthDate,
                patientSex: h.patientSex,
                patientAge: h.patientAge,
                studyDate: h.studyDate,
                studyTime: h.studyTime,
                studyDescription: h.studyDescription,
                accessionNumber: h.accessionNumber,
                institutionName: h.institutionName,
                bodyPart: h.bodyPart,
                processStatus: 'completed',
                createdAt: now,
                updatedAt: now,
              })
              .onConflictDoUpdate({
                target: [studies.ownerId, studies.studyInstanceUid],
                // The unique index leaves out studies being deleted: a new upload makes a new study.
                targetWhere: sql`${studies.deletingSince} is null`,
                set: {
                  updatedAt: now,
                  patientName: sql`coalesce(${studies.patientName}, excluded.patient_name)`,
                  studyDescription: sql`coalesce(${studies.studyDescription}, excluded.study_description)`,
                  studyDate: sql`coalesce(${studies.studyDate}, excluded.study_date)`,
                  institutionName: sql`coalesce(${studies.institutionName}, excluded.institution_name)`,
                  bodyPart: sql`coalesce(${studies.bodyPart}, excluded.body_part)`,
                },
              })
              .returning({ id: studies.id });
            studyIdByUid.set(h.studyInstanceUid, row!.id);
          }
          const studyId = studyIdByUid.get(h.studyInstanceUid)!;
          const seriesKey = `${studyId}|${h.seriesInstanceUid}`;
          if (!seriesIdByKey.has(seriesKey)) {
            const [row] = await tx
              .insert(series)
              .values({
                studyId,
                seriesInstanceUid: h.seriesInstanceUid,
                modality: h.modality,
                seriesNumber: h.seriesNumber,
                seriesDescription: h.seriesDescription,
                bodyPart: h.bodyPart,
              })
              .onConflictDoUpdate({
                target: [series.studyId, series.seriesInstanceUid],
                set: { modality: sql`coalesce(${series.modality}, excluded.modality)` },
              })
              .returning({ id: series.id });
            seriesIdByKey.set(seriesKey, row!.id);
          }
        }

        const studyIds = [...new Set(studyIdByUid.values())];
        const existing = new Map<
          string,
          { id: string; sizeBytes: number; crc32: number; storageKey: string }
        >();
        for (const part of chunks(
          p.items.map((i) => i.header.sopInstanceUid),
          5000,
        )) {
          const rows = await tx
            .select({
              id: instances.id,
              studyId: instances.studyId,
              sop: instances.sopInstanceUid,
              sizeBytes: instances.sizeBytes,
              crc32: instances.crc32,
              storageKey: instances.storageKey,
            })
            .from(instances)
            .where(and(inArray(instances.studyId, studyIds), inTextList(instances.sopInstanceUid, part)));
          for (const r of rows) existing.set(`${r.studyId}|${r.sop}`, r);
        }

        let delta = 0;
        const inserts: Array<typeof instances.$inferInsert> = [];
        const replacedKeys: string[] = [];
        for (const item of p.items) {
          const h = item.header;
          const studyId = studyIdByUid.get(h.studyInstanceUid)!;
          const seriesId = seriesIdByKey.get(`${studyId}|${h.seriesInstanceUid}`)!;
          const old = existing.get(`${studyId}|${h.sopInstanceUid}`);
          if (old && old.sizeBytes === item.sizeBytes && old.crc32 === item.crc32) continue;
          if (!item.storageKey) continue;
          if (old) {
            await tx
              .update(instances)
              .set({
                seriesId,
                sizeBytes: item.sizeBytes,
                crc32: item.crc32,
                storageKey: item.storageKey,
                storageOffset: item.storageOffset ?? 0,
                transferSyntaxUid: h.transferSyntaxUid,
                sopClassUid: h.sopClassUid,
                instanceNumber: h.instanceNumber,
              })
              .where(eq(instances.id, old.id));
            delta += item.sizeBytes - old.sizeBytes;
            replacedKeys.push(old.storageKey);
          } else {
            inserts.push({
              studyId,
              seriesId,
              sopInstanceUid: h.sopInstanceUid,
              sopClassUid: h.sopClassUid,
              instanceNumber: h.instanceNumber,
              transferSyntaxUid: h.transferSyntaxUid,
              sizeBytes: item.sizeBytes,
              crc32: item.crc32,
              storageKey: item.storageKey,
              storageOffset: item.storageOffset ?? 0,
            });
            delta += item.sizeBytes;
          }
        }
        for (const part of chunks(inserts, 5000)) await insertInstances(tx as unknown as Db, part);

        requireWithinQuota(
          quotaOf({ maxStorageBytes: owner.max, usedStorageBytes: owner.used }, p.defaultMaxBytes),
          delta,
        );
        if (delta !== 0) await adjustStorageUse(tx, p.ownerId, delta);
        // Replaced objects become this upload's to delete once it is committed.
        if (replacedKeys.length > 0) {
          for (const part of chunks(replacedKeys)) {
            await tx
              .insert(uploadObjects)
              .values(part.map((storageKey) => ({ uploadId: p.uploadId, storageKey })))
              .onConflictDoNothing();
          }
        }
        await refreshAggregates(tx as unknown as Db, studyIds);
        await tx
          .update(studyUploads)
          .set({ status: 'completed', reason: null, summary: p.summary, studyIds, finishedAt: new Date() })
          .where(eq(studyUploads.id, p.uploadId));
        const result = { studyIds, chargedBytes: delta };
        await tx.insert(notifications).values([p.notification(result)].flat());
        return result;
      });
    },

    // --- studies -----------------------------------------------------------------------------
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
    /** The study's instances in archive order: series by number then UID, instances by number then UID. */
    async instancesForDownload(studyId: string) {
      return db
        .select({
          seriesUid: series.seriesInstanceUid,
          seriesNumber: series.seriesNumber,
          modality: series.modality,
          sopUid: instances.sopInstanceUid,
          instanceNumber: instances.instanceNumber,
          sizeBytes: instances.sizeBytes,
          crc32: instances.crc32,
          storageKey: instances.storageKey,
          storageOffset: instances.storageOffset,
        })
        .from(instances)
        .innerJoin(series, eq(series.id, instances.seriesId))
        .where(eq(instances.studyId, studyId))
        .orderBy(...instanceReadingOrder());
    },
    /**
     * The objects holding a study's instances: `own` ones hold nothing else; `shared` ones are archives
     * kept whole that also hold instances of other studies (one upload with several studies).
     */
    async storageKeysOf(studyId: string): Promise<{ own: string[]; shared: string[] }> {
      const rows = await db
        .selectDistinct({
          key: instances.storageKey,
          shared: sql<boolean>`exists (select 1 from ${instances} o where o.storage_key = ${instances.storageKey} and o.study_id <> ${studyId})`,
        })
        .from(instances)
        .where(eq(instances.studyId, studyId));
      return {
        own: rows.filter((r) => !r.shared).map((r) => r.key),
        shared: rows.filter((r) => r.shared).map((r) => r.key),
      };
    },
    /** Those of `keys` that no instance references any more. */
    async unreferencedKeys(keys: string[]): Promise<string[]> {
      const out: string[] = [];
      for (const part of chunks(keys)) {
        const used = await db
          .selectDistinct({ key: instances.storageKey })
          .from(instances)
          .where(inArray(instances.storageKey, part));
        const usedSet = new Set(used.map((r) => r.key));
        out.push(...part.filter((k) => !usedSet.has(k)));
      }
      return out;
    },
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
export type StudiesRepository = ReturnType<typeof createStudiesRepository>;

async function refreshAggregates(db: Db, studyIds: string[]): Promise<void> {
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
 * instances rows: the one place they are written, for ingest (above) and delivered reports
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
