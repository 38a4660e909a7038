import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instanceReadingOrder } from '../../db/reading-order';
import { instances, series, studyThumbnails } from '../../db/schema/index';
import type { InstanceLocation } from '../../dicom-archive/instance-location';

/** A drawn thumbnail (`image`), or why the study has none (`reason`). */
export interface ThumbnailRecord {
  studyId: string;
  /** The study's state it was drawn from; a changed study needs a new one. */
  version: string;
  image: Buffer | null;
  reason: string | null;
}

/** Thumbnails kept per study, and the instances they are drawn from. */
export function createThumbnailsRepository(db: Db) {
  return {
    /** Where the study's instances are stored, in series order (series number), then instance-number order. */
    instancesOfStudy(studyId: string): Promise<Array<InstanceLocation & { seriesId: string }>> {
      return db
        .select({
          seriesId: instances.seriesId,
          storageKey: instances.storageKey,
          storageOffset: instances.storageOffset,
          sizeBytes: instances.sizeBytes,
        })
        .from(instances)
        .innerJoin(series, eq(series.id, instances.seriesId))
        .where(eq(instances.studyId, studyId))
        .orderBy(...instanceReadingOrder());
    },

    /** The kept thumbnail of this version of the study, if any. */
    async find(studyId: string, version: string): Promise<{ image: Buffer | null } | undefined> {
      const [row] = await db
        .select({ image: studyThumbnails.image })
        .from(studyThumbnails)
        .where(and(eq(studyThumbnails.studyId, studyId), eq(studyThumbnails.version, version)))
        .limit(1);
      return row;
    },

    /** Keeps the study's thumbnail in place of an older one; nothing is kept for a study deleted meanwhile. */
    async save(t: ThumbnailRecord): Promise<void> {
      const contentType = t.image ? 'image/webp' : null;
      await db
        .insert(studyThumbnails)
        .values({ studyId: t.studyId, version: t.version, image: t.image, contentType, reason: t.reason })
        .onConflictDoUpdate({
          target: studyThumbnails.studyId,
          set: { version: t.version, image: t.image, contentType, reason: t.reason, createdAt: new Date() },
        })
        .catch((err: unknown) => {
          if (!/foreign key/i.test(String((err as Error).message))) throw err;
        });
    },
  };
}
export type ThumbnailsRepository = ReturnType<typeof createThumbnailsRepository>;
