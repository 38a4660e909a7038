import { and, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { instanceReadingOrder } from '../../db/reading-order';
import { instances, series, studies } from '../../db/schema/index';

const CHUNK = 500;
export function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * `column = any(values)` with one parameter, a JSON array, instead of one parameter per value (the
 * query builder's `inArray`): upload batches name hundreds to thousands of instances, and building
 * and binding that many parameters cost more than the lookup itself. The array is computed once
 * (an init plan), so the column's indexes are used as with a literal list. Plain `json`, read once,
 * needs no conversion to `jsonb` first.
 */
export function inTextList(column: AnyPgColumn, values: string[]): SQL {
  return sql`${column} = any(array(select json_array_elements_text(${JSON.stringify(values)}::json)))`;
}

/**
 * Inserts instance rows with one statement and one parameter, a JSON array: built by the query builder
 * as a multi-row VALUES list (11 parameters a row), a 300-slice series cost about 60 ms of CPU before
 * the database saw it, and more in the driver's handling of 3,300 parameters. `json`, not `jsonb`: the
 * rows are read once, and converting 5,000 of them to jsonb first doubled the statement's time
 * (bench/README.md).
 */
export async function insertInstances(db: Db, rows: Array<typeof instances.$inferInsert>): Promise<void> {
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
    from json_to_recordset(${json}::json) as r(study_id uuid, series_id uuid, sop_instance_uid text,
      sop_class_uid text, instance_number integer, transfer_syntax_uid text, size_bytes bigint,
      crc32 bigint, storage_key text, storage_offset bigint)`);
}

/** Reading a study's series and instances: what is already stored, what a download holds, which objects. */
export function createStudyInstancesRepository(db: Db) {
  return {
    /**
     * Already indexed instances of this owner with these (study, SOP) UIDs: the owner's studies with
     * these Study UIDs first, then their instances by SOP UID, so the lookup reads only this owner's
     * few studies whatever the size of the database.
     */
    async existingInstances(ownerId: string, pairs: Array<{ studyUid: string; sopUid: string }>) {
      if (pairs.length === 0) return [];
      const studyUids = [...new Set(pairs.map((p) => p.studyUid))];
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
            inTextList(studies.studyInstanceUid, studyUids),
            inTextList(instances.sopInstanceUid, sops),
          ),
        );
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
  };
}
export type StudyInstancesRepository = ReturnType<typeof createStudyInstancesRepository>;
