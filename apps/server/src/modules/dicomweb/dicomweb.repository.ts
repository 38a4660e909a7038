import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, series, seriesMetadataCache, studies } from '../../db/schema/index';

export type StudyRow = typeof studies.$inferSelect;
export type SeriesRow = typeof series.$inferSelect;
export type InstanceRow = typeof instances.$inferSelect;

/** What building an instance's metadata needs of its row: where its file is, and what the index knows. */
export type MetadataInstance = Pick<
  InstanceRow,
  | 'id'
  | 'sopInstanceUid'
  | 'sopClassUid'
  | 'instanceNumber'
  | 'transferSyntaxUid'
  | 'sizeBytes'
  | 'storageKey'
  | 'storageOffset'
>;
type MetadataInstanceTuple = [
  string,
  string,
  string | null,
  number | null,
  string | null,
  number,
  string,
  number,
];
const metadataInstance = ([
  id,
  sopInstanceUid,
  sopClassUid,
  instanceNumber,
  transferSyntaxUid,
  sizeBytes,
  storageKey,
  storageOffset,
]: MetadataInstanceTuple): MetadataInstance => ({
  id,
  sopInstanceUid,
  sopClassUid,
  instanceNumber,
  transferSyntaxUid,
  sizeBytes: Number(sizeBytes),
  storageKey,
  storageOffset: Number(storageOffset),
});

/**
 * A series for its metadata: the cached gzip when current, else (`gzip` null) its instances in
 * reading order, as of `series.revision`.
 */
export interface SeriesMetadataState {
  series: SeriesRow;
  /** The caller's copy (seriesMetadataState's `held`) is the current one; `gzip` is then not read. */
  held?: boolean;
  gzip: Buffer | null;
  instances: MetadataInstance[] | null;
}

/** Reads of the study index for DICOMweb, and the cache of series metadata. */
export function createDicomwebRepository(db: Db) {
  return { ...indexReads(db), ...metadataCache(db) };
}
export type DicomwebRepository = ReturnType<typeof createDicomwebRepository>;

/** Studies, series and instances as the index holds them. */
function indexReads(db: Db) {
  // Every frame a viewer asks for names its series and instance: prepared once, not composed each time.
  const seriesByUidStatement = db
    .select()
    .from(series)
    .where(
      and(
        eq(series.studyId, sql.placeholder('studyId')),
        eq(series.seriesInstanceUid, sql.placeholder('seriesUid')),
      ),
    )
    .limit(1)
    .prepare('dicomweb_series_by_uid');
  const instanceByUidStatement = db
    .select()
    .from(instances)
    .where(
      and(
        eq(instances.studyId, sql.placeholder('studyId')),
        eq(instances.sopInstanceUid, sql.placeholder('sopUid')),
        eq(instances.seriesId, sql.placeholder('seriesId')),
      ),
    )
    .limit(1)
    .prepare('dicomweb_instance_by_uid');
  return {
    async seriesByUid(studyId: string, seriesUid: string): Promise<SeriesRow | undefined> {
      const [row] = await seriesByUidStatement.execute({ studyId, seriesUid });
      return row;
    },
    async instanceByUid(studyId: string, seriesId: string, sopUid: string): Promise<InstanceRow | undefined> {
      const [row] = await instanceByUidStatement.execute({ studyId, seriesId, sopUid });
      return row;
    },
    async findStudy(id: string): Promise<StudyRow | undefined> {
      const [row] = await db
        .select()
        .from(studies)
        .where(and(eq(studies.id, id), isNull(studies.deletingSince)))
        .limit(1);
      return row;
    },
    async seriesOf(studyIds: string[]): Promise<SeriesRow[]> {
      if (studyIds.length === 0) return [];
      return db
        .select()
        .from(series)
        .where(inArray(series.studyId, studyIds))
        .orderBy(sql`${series.seriesNumber} asc nulls last`, asc(series.seriesInstanceUid));
    },
    async instancesOfSeries(seriesIds: string[]): Promise<InstanceRow[]> {
      if (seriesIds.length === 0) return [];
      return db
        .select()
        .from(instances)
        .where(inArray(instances.seriesId, seriesIds))
        .orderBy(sql`${instances.instanceNumber} asc nulls last`, asc(instances.sopInstanceUid));
    },
    async instancesOfStudy(studyId: string): Promise<Array<InstanceRow & { seriesUid: string }>> {
      return db
        .select({ ...instanceColumns, seriesUid: series.seriesInstanceUid })
        .from(instances)
        .innerJoin(series, eq(series.id, instances.seriesId))
        .where(eq(instances.studyId, studyId))
        .orderBy(
          sql`${series.seriesNumber} asc nulls last`,
          asc(series.seriesInstanceUid),
          sql`${instances.instanceNumber} asc nulls last`,
          asc(instances.sopInstanceUid),
        );
    },
  };
}

const NO_SERIES = '00000000-0000-0000-0000-000000000000';

/**
 * The statement of seriesMetadataState, prepared once per way of naming the series: every WADO-RS
 * metadata request runs it, and composing it each time cost more than running it.
 */
function prepareMetadataState(db: Db, by: 'id' | 'uid') {
  const holdsCurrent = sql`(${series.id} = ${sql.placeholder('heldSeriesId')}::uuid
    and ${series.revision} = ${sql.placeholder('heldRevision')}::int
    and ${seriesMetadataCache.seriesId} is not null)`;
  return db
    .select({
      series,
      held: sql<boolean>`${holdsCurrent}`,
      // bytea travels as base64: PGlite converts it in JavaScript byte by byte otherwise.
      gzip: sql<
        string | null
      >`case when ${holdsCurrent} then null else encode(${seriesMetadataCache.gzip}, 'base64') end`,
      instances: sql<MetadataInstanceTuple[] | null>`case when ${seriesMetadataCache.seriesId} is null then (
        select coalesce(json_agg(json_build_array(i.id, i.sop_instance_uid, i.sop_class_uid,
          i.instance_number, i.transfer_syntax_uid, i.size_bytes, i.storage_key, i.storage_offset)
          order by i.instance_number asc nulls last, i.sop_instance_uid), '[]')
        from ${instances} i where i.series_id = ${series.id}) end`,
    })
    .from(series)
    .leftJoin(
      seriesMetadataCache,
      and(
        eq(seriesMetadataCache.seriesId, series.id),
        eq(seriesMetadataCache.version, sql`${series.revision}::text`),
      ),
    )
    .where(
      by === 'id'
        ? eq(series.id, sql.placeholder('seriesId'))
        : and(
            eq(series.studyId, sql.placeholder('studyId')),
            eq(series.seriesInstanceUid, sql.placeholder('seriesUid')),
          ),
    )
    .limit(1)
    .prepare(`dicomweb_series_metadata_state_by_${by}`);
}

/** Series metadata kept in the database, for the revision of the series it was built for. */
function metadataCache(db: Db) {
  const byId = prepareMetadataState(db, 'id');
  const byUid = prepareMetadataState(db, 'uid');
  return {
    /**
     * A series and its cached metadata when that is current (cached for its revision), else the
     * instances to build it from: one query, one snapshot, so the instances are exactly those of
     * the revision. Undefined when there is no such series.
     */
    async seriesMetadataState(
      by: { seriesId: string } | { studyId: string; seriesUid: string },
      /** A copy the caller holds: when it is the current one, the cached bytes are not sent again. */
      held?: { seriesId: string; revision: number },
    ) {
      const heldParams = { heldSeriesId: held?.seriesId ?? NO_SERIES, heldRevision: held?.revision ?? -1 };
      const [row] =
        'seriesId' in by
          ? await byId.execute({ ...heldParams, seriesId: by.seriesId })
          : await byUid.execute({ ...heldParams, studyId: by.studyId, seriesUid: by.seriesUid });
      if (!row) return undefined;
      const state: SeriesMetadataState = {
        series: row.series,
        held: row.held,
        gzip: row.gzip === null ? null : Buffer.from(row.gzip, 'base64'),
        instances: row.instances?.map(metadataInstance) ?? null,
      };
      return state;
    },
    /** Keeps a series' metadata, built for `revision`, replacing what was kept before. */
    async storeMetadata(
      seriesId: string,
      revision: number,
      instanceCount: number,
      gzip: Buffer,
    ): Promise<void> {
      const version = String(revision);
      const gz = sql`decode(${gzip.toString('base64')}, 'base64')`;
      await db
        .insert(seriesMetadataCache)
        .values({ seriesId, version, instanceCount, gzip: gz })
        .onConflictDoUpdate({
          target: seriesMetadataCache.seriesId,
          set: { version, instanceCount, gzip: gz, createdAt: new Date() },
        })
        // The series may have been deleted meanwhile; then there is nothing to cache.
        .catch((err: unknown) => {
          if (!/foreign key/i.test(String((err as Error).message))) throw err;
        });
    },
  };
}

const instanceColumns = {
  id: instances.id,
  studyId: instances.studyId,
  seriesId: instances.seriesId,
  sopInstanceUid: instances.sopInstanceUid,
  sopClassUid: instances.sopClassUid,
  instanceNumber: instances.instanceNumber,
  transferSyntaxUid: instances.transferSyntaxUid,
  sizeBytes: instances.sizeBytes,
  crc32: instances.crc32,
  storageKey: instances.storageKey,
  storageOffset: instances.storageOffset,
  createdAt: instances.createdAt,
};
