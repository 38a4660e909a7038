import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, series, seriesMetadataCache, studies } from '../../db/schema/index';

export type StudyRow = typeof studies.$inferSelect;
export type SeriesRow = typeof series.$inferSelect;
export type InstanceRow = typeof instances.$inferSelect;

/** Reads of the study index for DICOMweb, and the cache of series metadata. */
export function createDicomwebRepository(db: Db) {
  return {
    async seriesByUid(studyId: string, seriesUid: string): Promise<SeriesRow | undefined> {
      const [row] = await db
        .select()
        .from(series)
        .where(and(eq(series.studyId, studyId), eq(series.seriesInstanceUid, seriesUid)))
        .limit(1);
      return row;
    },
    async instanceByUid(studyId: string, seriesId: string, sopUid: string): Promise<InstanceRow | undefined> {
      const [row] = await db
        .select()
        .from(instances)
        .where(
          and(
            eq(instances.studyId, studyId),
            eq(instances.sopInstanceUid, sopUid),
            eq(instances.seriesId, seriesId),
          ),
        )
        .limit(1);
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
    /** A digest of what the series holds; changes whenever an instance is added or replaced. */
    async seriesVersion(seriesId: string): Promise<{ version: string; count: number }> {
      const [row] = await db
        .select({
          version: sql<string>`coalesce(md5(string_agg(${instances.storageKey} || '@' || ${instances.storageOffset}, ',' order by ${instances.storageKey}, ${instances.storageOffset})), '')`,
          count: sql<number>`count(*)::int`,
        })
        .from(instances)
        .where(eq(instances.seriesId, seriesId));
      return { version: row?.version ?? '', count: Number(row?.count ?? 0) };
    },
    async cachedMetadata(seriesId: string): Promise<{ version: string; gzip: Buffer } | undefined> {
      const [row] = await db
        .select({ version: seriesMetadataCache.version, gzip: seriesMetadataCache.gzip })
        .from(seriesMetadataCache)
        .where(eq(seriesMetadataCache.seriesId, seriesId))
        .limit(1);
      return row;
    },
    async storeMetadata(
      seriesId: string,
      version: string,
      instanceCount: number,
      gzip: Buffer,
    ): Promise<void> {
      await db
        .insert(seriesMetadataCache)
        .values({ seriesId, version, instanceCount, gzip })
        .onConflictDoUpdate({
          target: seriesMetadataCache.seriesId,
          set: { version, instanceCount, gzip, createdAt: new Date() },
        })
        // The series may have been deleted meanwhile; then there is nothing to cache.
        .catch((err: unknown) => {
          if (!/foreign key/i.test(String((err as Error).message))) throw err;
        });
    },
  };
}
export type DicomwebRepository = ReturnType<typeof createDicomwebRepository>;

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
