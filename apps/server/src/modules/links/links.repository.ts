import { and, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  studies,
  studyLinkCredentials,
  studyLinkFiles,
  studyLinks,
  studyLinkStudies,
  users,
} from '../../db/schema/index';

export type LinkRow = typeof studyLinks.$inferSelect;
export type NewLink = typeof studyLinks.$inferInsert;
export type LinkStudy = { linkId: string; id: string; description: string | null; studyDate: string | null };

/**
 * Whether a link opens now: not revoked, paused, disabled or expired, its owner's account active
 * and sharing on ('Share Medical Records'). Which of its studies it opens is the access rule's
 * business (modules/access); a link whose studies all left its owner opens nothing.
 */
const liveLink = (at: Date) =>
  and(
    isNull(studyLinks.revokedAt),
    isNull(studyLinks.pausedAt),
    isNull(studyLinks.disabledAt),
    gt(studyLinks.expiresAt, at),
    sql`exists (select 1 from ${users} u where u.id = ${studyLinks.ownerId}
                and u.share_medical_data and u.account_status = 'active')`,
  );

/** The owner's side: making, listing and changing links, and the studies they carry. */
function createOwnedLinksRepository(db: Db) {
  return {
    async insert(link: NewLink, studyIds: string[]): Promise<LinkRow> {
      return db.transaction(async (tx) => {
        const [row] = await tx.insert(studyLinks).values(link).returning();
        await tx.insert(studyLinkStudies).values(studyIds.map((studyId) => ({ linkId: row!.id, studyId })));
        return row!;
      });
    },

    /** The owner's links, newest first; with `studyId`, only those carrying that study. */
    async listForOwner(ownerId: string, studyId?: string): Promise<LinkRow[]> {
      return db
        .select()
        .from(studyLinks)
        .where(
          and(
            eq(studyLinks.ownerId, ownerId),
            studyId
              ? sql`exists (select 1 from ${studyLinkStudies} s where s.link_id = ${studyLinks.id} and s.study_id = ${studyId})`
              : undefined,
          ),
        )
        .orderBy(desc(studyLinks.createdAt), desc(studyLinks.id));
    },

    /** The studies of these links that their owners still hold (a transferred study leaves its links' lists). */
    async studiesOf(linkIds: string[]): Promise<LinkStudy[]> {
      if (linkIds.length === 0) return [];
      return db
        .select({
          linkId: studyLinkStudies.linkId,
          id: studies.id,
          description: studies.studyDescription,
          studyDate: studies.studyDate,
        })
        .from(studyLinkStudies)
        .innerJoin(studyLinks, eq(studyLinks.id, studyLinkStudies.linkId))
        .innerJoin(studies, eq(studies.id, studyLinkStudies.studyId))
        .where(
          and(
            inArray(studyLinkStudies.linkId, linkIds),
            eq(studies.ownerId, studyLinks.ownerId),
            isNull(studies.deletingSince),
          ),
        )
        .orderBy(studies.studyDate, studies.id);
    },

    async findOwned(ownerId: string, linkId: string): Promise<LinkRow | undefined> {
      const [row] = await db
        .select()
        .from(studyLinks)
        .where(and(eq(studyLinks.id, linkId), eq(studyLinks.ownerId, ownerId)))
        .limit(1);
      return row;
    },

    async update(
      linkId: string,
      set: Partial<Pick<LinkRow, 'pausedAt' | 'expiresAt' | 'revokedAt'>>,
    ): Promise<LinkRow | undefined> {
      const [row] = await db
        .update(studyLinks)
        .set(set)
        .where(and(eq(studyLinks.id, linkId), isNull(studyLinks.revokedAt)))
        .returning();
      return row;
    },
  };
}

/** Links as they open: found while live, passcode budget and open count spent atomically. */
function createLiveLinksRepository(db: Db) {
  return {
    /** A link by its manifest id when it opens now (see liveLink), whatever its open count. */
    async findLiveByManifest(manifestId: string, at: Date): Promise<LinkRow | undefined> {
      const [row] = await db
        .select()
        .from(studyLinks)
        .where(and(eq(studyLinks.manifestId, manifestId), liveLink(at)))
        .limit(1);
      return row;
    },

    async findLive(linkId: string, at: Date): Promise<LinkRow | undefined> {
      const [row] = await db
        .select()
        .from(studyLinks)
        .where(and(eq(studyLinks.id, linkId), liveLink(at)))
        .limit(1);
      return row;
    },

    /**
     * Spends one wrong passcode of the link's lifetime budget, atomically, so parallel guesses never
     * spend more than the budget; at zero the link is disabled. Null when the budget was already
     * spent (the guess did not count).
     */
    async spendPasscodeAttempt(linkId: string, at: Date): Promise<{ left: number } | null> {
      const [row] = await db
        .update(studyLinks)
        .set({
          passcodeAttemptsLeft: sql`${studyLinks.passcodeAttemptsLeft} - 1`,
          disabledAt: sql`case when ${studyLinks.passcodeAttemptsLeft} <= 1 then ${at.toISOString()}::timestamptz else ${studyLinks.disabledAt} end`,
        })
        .where(
          and(
            eq(studyLinks.id, linkId),
            gt(studyLinks.passcodeAttemptsLeft, 0),
            isNull(studyLinks.disabledAt),
          ),
        )
        .returning({ left: studyLinks.passcodeAttemptsLeft });
      return row ?? null;
    },

    /**
     * Counts one open, atomically, within the link's maximum; returns whether it is the link's
     * first, or null when the maximum was reached.
     */
    async countOpen(linkId: string, recipient: string, at: Date): Promise<{ first: boolean } | null> {
      const [row] = await db
        .update(studyLinks)
        .set({ opens: sql`${studyLinks.opens} + 1`, lastOpenedAt: at, lastRecipient: recipient })
        .where(
          and(
            eq(studyLinks.id, linkId),
            or(isNull(studyLinks.maxOpens), lt(studyLinks.opens, studyLinks.maxOpens)),
          ),
        )
        .returning({ opens: studyLinks.opens });
      return row ? { first: row.opens === 1 } : null;
    },
  };
}

/** What an open issues: recipients' credentials, and the files and download tickets they redeem. */
function createLinkCredentialsRepository(db: Db) {
  return {
    async insertCredential(c: typeof studyLinkCredentials.$inferInsert): Promise<{ id: string }> {
      const [row] = await db
        .insert(studyLinkCredentials)
        .values(c)
        .returning({ id: studyLinkCredentials.id });
      return row!;
    },

    /** A credential by its token's hash with its link, when both are live. */
    async findLiveCredential(by: { tokenHash: string } | { id: string }, at: Date) {
      const [row] = await db
        .select({ credential: studyLinkCredentials, link: studyLinks })
        .from(studyLinkCredentials)
        .innerJoin(studyLinks, eq(studyLinks.id, studyLinkCredentials.linkId))
        .where(
          and(
            'id' in by
              ? eq(studyLinkCredentials.id, by.id)
              : eq(studyLinkCredentials.tokenHash, by.tokenHash),
            gt(studyLinkCredentials.expiresAt, at),
            liveLink(at),
          ),
        )
        .limit(1);
      return row;
    },

    async insertFile(f: typeof studyLinkFiles.$inferInsert): Promise<void> {
      await db.insert(studyLinkFiles).values(f);
    },

    /**
     * A file or download ticket by its token's hash, with its credential, while it and its link
     * live. A ticket serves repeated requests within its hour, so a download can resume (Range).
     */
    async takeFile(tokenHash: string, kind: 'file' | 'download', at: Date) {
      const [found] = await db
        .select({ file: studyLinkFiles, credential: studyLinkCredentials, link: studyLinks })
        .from(studyLinkFiles)
        .innerJoin(studyLinkCredentials, eq(studyLinkCredentials.id, studyLinkFiles.credentialId))
        .innerJoin(studyLinks, eq(studyLinks.id, studyLinkFiles.linkId))
        .where(
          and(
            eq(studyLinkFiles.tokenHash, tokenHash),
            eq(studyLinkFiles.kind, kind),
            gt(studyLinkFiles.expiresAt, at),
            liveLink(at),
          ),
        )
        .limit(1);
      return found;
    },

    /** Files and tickets past their hour (kept tidy as new ones are made). */
    async deleteExpiredFiles(at: Date): Promise<void> {
      await db.delete(studyLinkFiles).where(lt(studyLinkFiles.expiresAt, at));
    },
  };
}

export function createLinksRepository(db: Db) {
  return {
    ...createOwnedLinksRepository(db),
    ...createLiveLinksRepository(db),
    ...createLinkCredentialsRepository(db),
  };
}
export type LinksRepository = ReturnType<typeof createLinksRepository>;
