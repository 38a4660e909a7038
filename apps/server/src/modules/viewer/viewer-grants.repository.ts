import { and, eq, gt, isNull, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sessions, users, viewerGrants } from '../../db/schema/index';

/** A live viewer credential: one study, one user, until it expires. */
export interface ViewerGrant {
  grantId: string;
  userId: string;
  /** The sign-in session that asked for it; the grant ends with it. */
  sessionId: string | null;
  role: string;
  studyId: string;
  expiresAt: Date;
  bindingHash: string | null;
  /** Set when the grant opens a study link's study for its recipient (modules/links). */
  linkCredentialId: string | null;
}

/** Viewer credentials, stored by the hash of their token. */
export function createViewerGrantsRepository(db: Db) {
  return {
    async insert(grant: {
      tokenHash: string;
      userId: string;
      studyId: string;
      expiresAt: Date;
      sessionId: string | null;
      linkCredentialId?: string | null;
    }): Promise<void> {
      await db.insert(viewerGrants).values(grant);
    },

    /**
     * The grant behind a token hash, unless it expired by `now`, was revoked, or its user is no longer
     * active or the sign-in session that asked for it ended (sign-out, a password reset, "sign out
     * other devices" or an admin).
     */
    async findLive(tokenHash: string, now: Date): Promise<ViewerGrant | undefined> {
      const [row] = await db
        .select({
          grantId: viewerGrants.id,
          userId: viewerGrants.userId,
          sessionId: viewerGrants.sessionId,
          role: users.role,
          studyId: viewerGrants.studyId,
          expiresAt: viewerGrants.expiresAt,
          bindingHash: viewerGrants.bindingHash,
          linkCredentialId: viewerGrants.linkCredentialId,
        })
        .from(viewerGrants)
        .innerJoin(users, eq(users.id, viewerGrants.userId))
        .leftJoin(sessions, eq(sessions.id, viewerGrants.sessionId))
        .where(
          and(
            eq(viewerGrants.tokenHash, tokenHash),
            isNull(viewerGrants.revokedAt),
            gt(viewerGrants.expiresAt, now),
            eq(users.accountStatus, 'active'),
            or(isNull(viewerGrants.sessionId), isNull(sessions.revokedAt)),
          ),
        )
        .limit(1);
      return row;
    },

    /** Sets the browser binding of a grant that has none yet; false when another caller bound it first. */
    async bindOnce(grantId: string, bindingHash: string): Promise<boolean> {
      const [row] = await db
        .update(viewerGrants)
        .set({ bindingHash })
        .where(and(eq(viewerGrants.id, grantId), isNull(viewerGrants.bindingHash)))
        .returning({ id: viewerGrants.id });
      return Boolean(row);
    },

    /** Ends every live credential of a study. */
    async revokeStudy(studyId: string, at: Date): Promise<void> {
      await db
        .update(viewerGrants)
        .set({ revokedAt: at })
        .where(and(eq(viewerGrants.studyId, studyId), isNull(viewerGrants.revokedAt)));
    },
  };
}
export type ViewerGrantsRepository = ReturnType<typeof createViewerGrantsRepository>;
