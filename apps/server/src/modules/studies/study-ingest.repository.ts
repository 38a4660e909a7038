import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  instances,
  notifications,
  series,
  studies,
  studyUploads,
  uploadObjects,
  users,
} from '../../db/schema/index';
import type { InstanceHeader } from '../../dicom-archive/dicom-header';
import { adjustStorageUse, quotaOf, requireWithinQuota } from '../accounts';
import { chunks, inTextList, insertInstances } from './study-instances.repository';
import { refreshAggregates } from './study-totals.repository';
import type { NewNotification } from './study-uploads.repository';

/** One instance ready to be indexed; `storageKey` null means "already stored unchanged, index nothing". */
export interface IndexedInstance {
  header: InstanceHeader;
  sizeBytes: number;
  crc32: number;
  storageKey: string | null;
  /** Where the file starts inside the object (an archive kept whole); 0 or absent for its own object. */
  storageOffset?: number;
}

/** What commitIngest is given: the upload, its owner, its instances, and what to tell the owner. */
export interface IngestCommit {
  uploadId: string;
  ownerId: string;
  defaultMaxBytes: number;
  items: IndexedInstance[];
  summary: Record<string, unknown>;
  notification: (result: { studyIds: string[]; chargedBytes: number }) => NewNotification | NewNotification[];
  /**
   * Set when the upload is a de-identified copy (modules/deidentify): its studies are marked so, with
   * what was removed and left out, in the same transaction, so a copy is never listed without its mark.
   */
  deidentification?: Record<string, unknown>;
  /**
   * Awaited as the transaction's last step, with everything written: what must be done before the
   * upload may commit (its archive kept in storage) runs beside the transaction's work; a throw rolls
   * it back.
   */
  beforeCommit?: () => Promise<void>;
}

/** The transaction commitIngest runs in. */
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Where each study and series of an upload is: study id by Study UID, series id by `studyId|Series UID`. */
interface IngestIds {
  studyIdByUid: Map<string, string>;
  seriesIdByKey: Map<string, string>;
  /** Studies this transaction created: nothing is stored in them yet. */
  createdStudyIds: Set<string>;
}

/** An instance already indexed in one of the upload's studies. */
interface StoredInstance {
  id: string;
  seriesId: string;
  sizeBytes: number;
  crc32: number;
  storageKey: string;
}

/** The owner's storage use and limit, their row locked so one user's uploads are charged in turn. */
async function lockOwner(tx: Tx, ownerId: string) {
  const [owner] = await tx
    .select({ used: users.usedStorageBytes, max: users.maxStorageBytes })
    .from(users)
    .where(eq(users.id, ownerId))
    .for('update');
  if (!owner) throw new Error('owner not found');
  return owner;
}

/** The study of this header, created or completed with what it adds; its id, and whether it is new. */
async function upsertStudy(
  tx: Tx,
  ownerId: string,
  h: InstanceHeader,
  now: Date,
): Promise<{ id: string; created: boolean }> {
  const [row] = await tx
    .insert(studies)
    .values({
      ownerId,
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
    // A row the statement inserted has no xmax yet; one it updated carries this transaction's.
    .returning({ id: studies.id, created: sql<boolean>`(xmax = 0)` });
  return row!;
}

/** The series of this header in its study, created or completed with its modality; its id. */
async function upsertSeries(tx: Tx, studyId: string, h: InstanceHeader): Promise<string> {
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
  return row!.id;
}

/** Every study and series the upload's instances belong to, each written once, in upload order. */
async function upsertStudiesAndSeries(tx: Tx, ownerId: string, items: IndexedInstance[]): Promise<IngestIds> {
  const studyIdByUid = new Map<string, string>();
  const seriesIdByKey = new Map<string, string>();
  const createdStudyIds = new Set<string>();
  const now = new Date();
  for (const item of items) {
    const h = item.header;
    if (!studyIdByUid.has(h.studyInstanceUid)) {
      const study = await upsertStudy(tx, ownerId, h, now);
      studyIdByUid.set(h.studyInstanceUid, study.id);
      if (study.created) createdStudyIds.add(study.id);
    }
    const studyId = studyIdByUid.get(h.studyInstanceUid)!;
    const seriesKey = `${studyId}|${h.seriesInstanceUid}`;
    if (!seriesIdByKey.has(seriesKey)) seriesIdByKey.set(seriesKey, await upsertSeries(tx, studyId, h));
  }
  return { studyIdByUid, seriesIdByKey, createdStudyIds };
}

/**
 * The instances of these studies already indexed under the upload's SOP UIDs, by `studyId|SOP UID`.
 * Studies the transaction created hold none, so a first upload of its studies looks nothing up.
 */
async function storedInstances(tx: Tx, ids: IngestIds, items: IndexedInstance[]) {
  const existing = new Map<string, StoredInstance>();
  const studyIds = [...new Set(ids.studyIdByUid.values())].filter((id) => !ids.createdStudyIds.has(id));
  if (studyIds.length === 0) return existing;
  for (const part of chunks(
    items.map((i) => i.header.sopInstanceUid),
    5000,
  )) {
    const rows = await tx
      .select({
        id: instances.id,
        studyId: instances.studyId,
        seriesId: instances.seriesId,
        sop: instances.sopInstanceUid,
        sizeBytes: instances.sizeBytes,
        crc32: instances.crc32,
        storageKey: instances.storageKey,
      })
      .from(instances)
      .where(and(inArray(instances.studyId, studyIds), inTextList(instances.sopInstanceUid, part)));
    for (const r of rows) existing.set(`${r.studyId}|${r.sop}`, r);
  }
  return existing;
}

/**
 * Raises the revision of series whose instances changed, in the transaction that changes them: what
 * was built from a series before (its cached metadata, on any node) is then known to be out of date.
 */
async function raiseRevisions(tx: Tx, seriesIds: Set<string>) {
  if (seriesIds.size === 0) return;
  await tx
    .update(series)
    .set({ revision: sql`${series.revision} + 1` })
    .where(inArray(series.id, [...seriesIds]));
}

/**
 * Indexes the upload's instances: a changed one replaces the stored one in place, a new one is
 * inserted, an unchanged one is left. Returns the bytes the owner's storage use changes by and the
 * objects the replaced instances were in. Every series that gains, loses or changes an instance
 * has its revision raised.
 */
async function indexInstances(
  tx: Tx,
  items: IndexedInstance[],
  ids: IngestIds,
  existing: Map<string, StoredInstance>,
): Promise<{ delta: number; replacedKeys: string[] }> {
  let delta = 0;
  const inserts: Array<typeof instances.$inferInsert> = [];
  const replacedKeys: string[] = [];
  const changedSeries = new Set<string>();
  for (const item of items) {
    const h = item.header;
    const studyId = ids.studyIdByUid.get(h.studyInstanceUid)!;
    const seriesId = ids.seriesIdByKey.get(`${studyId}|${h.seriesInstanceUid}`)!;
    const old = existing.get(`${studyId}|${h.sopInstanceUid}`);
    if (old && old.sizeBytes === item.sizeBytes && old.crc32 === item.crc32) continue;
    if (!item.storageKey) continue;
    changedSeries.add(seriesId);
    if (old) {
      // A file whose Series UID changed moves the instance: its former series loses it.
      changedSeries.add(old.seriesId);
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
  await raiseRevisions(tx, changedSeries);
  return { delta, replacedKeys };
}

/** Replaced objects become this upload's to delete once it is committed. */
async function keepReplacedForDelete(tx: Tx, uploadId: string, replacedKeys: string[]) {
  if (replacedKeys.length === 0) return;
  for (const part of chunks(replacedKeys)) {
    await tx
      .insert(uploadObjects)
      .values(part.map((storageKey) => ({ uploadId, storageKey })))
      .onConflictDoNothing();
  }
}

/** Committing an upload: its studies, series and instances indexed, the quota charged, the upload completed. */
export function createStudyIngestRepository(db: Db) {
  return {
    /**
     * Indexes everything one upload brought, charges the quota and completes the upload, all in one
     * transaction: either the studies appear whole or nothing changes. The owner's row is locked so
     * concurrent uploads of one user are charged one after the other.
     */
    async commitIngest(p: IngestCommit): Promise<{ studyIds: string[]; chargedBytes: number }> {
      return db.transaction(async (tx) => {
        const owner = await lockOwner(tx, p.ownerId);
        const ids = await upsertStudiesAndSeries(tx, p.ownerId, p.items);
        const studyIds = [...new Set(ids.studyIdByUid.values())];
        if (p.deidentification)
          await tx
            .update(studies)
            .set({ deidentified: true, deidentification: p.deidentification })
            .where(inArray(studies.id, studyIds));
        const existing = await storedInstances(tx, ids, p.items);
        const { delta, replacedKeys } = await indexInstances(tx, p.items, ids, existing);
        requireWithinQuota(
          quotaOf({ maxStorageBytes: owner.max, usedStorageBytes: owner.used }, p.defaultMaxBytes),
          delta,
        );
        if (delta !== 0) await adjustStorageUse(tx, p.ownerId, delta);
        await keepReplacedForDelete(tx, p.uploadId, replacedKeys);
        await refreshAggregates(tx as unknown as Db, studyIds);
        await tx
          .update(studyUploads)
          .set({ status: 'completed', reason: null, summary: p.summary, studyIds, finishedAt: new Date() })
          .where(eq(studyUploads.id, p.uploadId));
        const result = { studyIds, chargedBytes: delta };
        await tx.insert(notifications).values([p.notification(result)].flat());
        await p.beforeCommit?.();
        return result;
      });
    },
  };
}
export type StudyIngestRepository = ReturnType<typeof createStudyIngestRepository>;
