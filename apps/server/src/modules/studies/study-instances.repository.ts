import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { copyRows } from '../../db/copy-rows';
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
 * Inserts instance rows, in the transaction `tx`, with COPY (db/copy-rows.ts): an upload inserts
 * thousands at once. Before it, one `json_to_recordset` statement, itself once faster than the query
 * builder's multi-row VALUES (11 parameters a row: about 60 ms of CPU for a 300-slice series before
 * the database saw it); the JSON took the database longer to parse than COPY's text (bench/README.md).
 * The ids are made here, not by the column's default: a volatile default (`gen_random_uuid()`) makes
 * PostgreSQL's COPY insert row by row instead of in batches, which cost 20-25 ms per 5,000 rows.
 */
export async function insertInstances(tx: Db, rows: Array<typeof instances.$inferInsert>): Promise<void> {
  await copyRows(
    tx,
    'instances',
    INSTANCE_COLUMNS,
    rows.map((r) => [
      r.id ?? randomUUID(),
      r.studyId,
      r.seriesId,
      r.sopInstanceUid,
      r.sopClassUid ?? null,
      r.instanceNumber ?? null,
      r.transferSyntaxUid ?? null,
      r.sizeBytes,
      r.crc32,
      r.storageKey,
      r.storageOffset ?? 0,
    ]),
  );
}
const INSTANCE_COLUMNS = [
  'id',
  'study_id',
  'series_id',
  'sop_instance_uid',
  'sop_class_uid',
  'instance_number',
  'transfer_syntax_uid',
  'size_bytes',
  'crc32',
  'storage_key',
  'storage_offset',
] as const;

/** Reading a study's series and instances: what is already stored, what a download holds, which objects. */
export function createStudyInstancesRepository(db: Db) {
  return {
    /**
     * Already indexed instances of this owner with these (study, SOP) UIDs: the owner's studies with
     * these Study UIDs first, then their instances by SOP UID, so the lookup reads only this owner's
     * few studies whatever the size of the database. An upload of studies the owner does not have
     * yet, the usual case, costs only the first, small query: sending and reading every SOP UID of
     * 5,000 files took 27-29 ms, the owner's studies 4-6 ms (bench/README.md).
     */
    async existingInstances(ownerId: string, pairs: Array<{ studyUid: string; sopUid: string }>) {
      if (pairs.length === 0) return [];
      const owned = await db
        .select({ id: studies.id, studyUid: studies.studyInstanceUid })
        .from(studies)
        .where(
          and(
            eq(studies.ownerId, ownerId),
            isNull(studies.deletingSince),
            inTextList(studies.studyInstanceUid, [...new Set(pairs.map((p) => p.studyUid))]),
          ),
        );
      if (owned.length === 0) return [];
      const uidOf = new Map(owned.map((s) => [s.id, s.studyUid]));
      const ownedUids = new Set(uidOf.values());
      const sops = [...new Set(pairs.filter((p) => ownedUids.has(p.studyUid)).map((p) => p.sopUid))];
      const rows = await db
        .select({
          studyId: instances.studyId,
          sopUid: instances.sopInstanceUid,
          sizeBytes: instances.sizeBytes,
          crc32: instances.crc32,
          storageKey: instances.storageKey,
        })
        .from(instances)
        .where(
          and(inArray(instances.studyId, [...uidOf.keys()]), inTextList(instances.sopInstanceUid, sops)),
        );
      return rows.map(({ studyId, ...r }) => ({ studyUid: uidOf.get(studyId)!, ...r }));
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
