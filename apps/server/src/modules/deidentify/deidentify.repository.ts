import { inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { studies } from '../../db/schema/index';

/** The de-identified mark of copies: the rest of a copy is an ordinary study (modules/studies). */
export function createDeidentifyRepository(db: Db) {
  return {
    /** Marks the studies a copy made as de-identified, with what was removed and left out. */
    async markDeidentified(studyIds: string[], summary: Record<string, unknown>): Promise<void> {
      if (studyIds.length === 0) return;
      await db
        .update(studies)
        .set({ deidentified: true, deidentification: summary })
        .where(inArray(studies.id, studyIds));
    },
  };
}
export type DeidentifyRepository = ReturnType<typeof createDeidentifyRepository>;
