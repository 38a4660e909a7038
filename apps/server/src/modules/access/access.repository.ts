import { and, asc, eq, isNull, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { studies } from '../../db/schema/index';
import type { Principal } from './principal';

export type StudyRow = typeof studies.$inferSelect;
/** A study named by our id or by its Study Instance UID (DICOMweb). */
export type StudyTarget = { id: string } | { uid: string };

/**
 * The one statement of which studies a principal may see: their own, processed and not being
 * deleted; a viewer grant narrows that to its one study. `includeDeleting` lets an owner finish a
 * delete that stopped half-way.
 */
function visibleTo(p: Principal, opts: { includeDeleting?: boolean } = {}): SQL {
  return and(
    eq(studies.ownerId, p.userId),
    eq(studies.processStatus, 'completed'),
    opts.includeDeleting ? undefined : isNull(studies.deletingSince),
    p.studyId ? eq(studies.id, p.studyId) : undefined,
  )!;
}

export function createAccessRepository(db: Db) {
  return {
    async findVisible(
      p: Principal,
      target: StudyTarget,
      opts: { includeDeleting?: boolean } = {},
    ): Promise<StudyRow | undefined> {
      const named = 'id' in target ? eq(studies.id, target.id) : eq(studies.studyInstanceUid, target.uid);
      const [row] = await db
        .select()
        .from(studies)
        .where(and(named, visibleTo(p, opts)))
        .limit(1);
      return row;
    },
    async listVisible(p: Principal): Promise<StudyRow[]> {
      return db.select().from(studies).where(visibleTo(p)).orderBy(asc(studies.createdAt), asc(studies.id));
    },
  };
}
export type AccessRepository = ReturnType<typeof createAccessRepository>;
