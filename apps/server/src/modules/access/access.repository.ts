import { and, asc, desc, eq, exists, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { studies, studyShares, users } from '../../db/schema/index';
import type { Principal } from './principal';

export type StudyRow = typeof studies.$inferSelect;
/** A study named by our id or by its Study Instance UID (DICOMweb). */
export type StudyTarget = { id: string } | { uid: string };

/**
 * A live share of the study with this user, while its owner allows sharing (Settings, 'Share
 * Medical Records'): turning that off closes every recipient's access until it is on again.
 */
function sharedWith(userId: string): SQL {
  return exists(
    sql`(select 1 from ${studyShares} join ${users} on ${users.id} = ${studyShares.ownerId}
         where ${studyShares.studyId} = ${studies.id} and ${studyShares.targetUserId} = ${userId}
           and ${studyShares.revokedAt} is null and ${studyShares.ownerId} = ${studies.ownerId}
           and ${users.shareMedicalData})`,
  );
}

/**
 * The one statement of which studies a principal may see: their own and those shared with them,
 * processed and not being deleted; a viewer grant narrows that to its one study.
 * `includeDeleting` lets an owner finish a delete that stopped half-way.
 */
function visibleTo(p: Principal, opts: { includeDeleting?: boolean } = {}): SQL {
  return and(
    or(eq(studies.ownerId, p.userId), sharedWith(p.userId)),
    eq(studies.processStatus, 'completed'),
    opts.includeDeleting ? undefined : isNull(studies.deletingSince),
    p.studyId ? eq(studies.id, p.studyId) : undefined,
  )!;
}

/** A study shared with a user, with the share that opens it and its owner (Shared Studies tab). */
export interface SharedStudyRow {
  study: StudyRow;
  shareId: string;
  sharedAt: Date;
  ownerName: string | null;
  ownerEmail: string;
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
    /** The studies others share with this user that they may open now, newest share first. */
    async listSharedWith(userId: string): Promise<SharedStudyRow[]> {
      return db
        .select({
          study: studies,
          shareId: studyShares.id,
          sharedAt: studyShares.createdAt,
          ownerName: users.name,
          ownerEmail: users.email,
        })
        .from(studyShares)
        .innerJoin(studies, eq(studies.id, studyShares.studyId))
        .innerJoin(users, eq(users.id, studies.ownerId))
        .where(
          and(
            eq(studyShares.targetUserId, userId),
            isNull(studyShares.revokedAt),
            eq(studyShares.ownerId, studies.ownerId),
            eq(users.shareMedicalData, true),
            eq(studies.processStatus, 'completed'),
            isNull(studies.deletingSince),
          ),
        )
        .orderBy(desc(studyShares.createdAt), desc(studyShares.id));
    },
  };
}
export type AccessRepository = ReturnType<typeof createAccessRepository>;
