import { and, desc, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  auditEvents,
  ownershipRequests,
  providers,
  studies,
  studyShares,
  users,
} from '../../db/schema/index';
import { adjustStorageUse } from '../accounts';

export type ShareRow = typeof studyShares.$inferSelect;
type StudyRow = typeof studies.$inferSelect;

/** A share with what its lists show: the study's header and the recipient's account. */
export interface ShareView {
  share: ShareRow;
  study: Pick<
    StudyRow,
    'id' | 'studyInstanceUid' | 'studyDescription' | 'patientName' | 'modalities' | 'studyDate'
  >;
  target: { id: string; email: string; name: string | null } | null;
}

/** Why a transfer did not happen (the service turns these into messages). */
export type TransferRefusal = 'gone' | 'no_room' | 'duplicate';

/** Audit actions the owner's access receipts list. */
export const RECEIPT_ACTIONS = [
  'study.view',
  'study.download',
  'study.share',
  'study.unshare',
  'study.ownership_request',
  'study.ownership_transfer',
  // Study links (modules/links): made, changed, ended, and every use by a recipient.
  'link.create',
  'link.pause',
  'link.resume',
  'link.extend',
  'link.revoke',
  'link.open',
  'link.file',
  'link.view',
  'link.passcode',
] as const;
/** Link events listed whatever their outcome: a wrong passcode or a refused open is a receipt too. */
const LINK_USE_ACTIONS = ['link.open', 'link.passcode', 'link.view'];

const shareView = {
  share: studyShares,
  study: {
    id: studies.id,
    studyInstanceUid: studies.studyInstanceUid,
    studyDescription: studies.studyDescription,
    patientName: studies.patientName,
    modalities: studies.modalities,
    studyDate: studies.studyDate,
  },
  targetId: users.id,
  targetEmail: users.email,
  targetName: users.name,
};
type ShareViewRow = {
  share: ShareRow;
  study: ShareView['study'];
  targetId: string | null;
  targetEmail: string | null;
  targetName: string | null;
};
const toView = (r: ShareViewRow): ShareView => ({
  share: r.share,
  study: r.study,
  target: r.targetId ? { id: r.targetId, email: r.targetEmail!, name: r.targetName } : null,
});

/** Shares themselves: made, found, revoked, given to the account their email reaches, first opened. */
function createSharesRepository(db: Db) {
  return {
    /** The professional account an admin linked to a provider, if any. */
    async linkedAccountOf(providerId: string): Promise<string | null> {
      const [row] = await db
        .select({ id: providers.linkedUserId })
        .from(providers)
        .where(eq(providers.id, providerId))
        .limit(1);
      return row?.id ?? null;
    },

    /** Creates a share unless the study is already shared with that email (then undefined). */
    async insertShare(values: typeof studyShares.$inferInsert): Promise<ShareRow | undefined> {
      const [row] = await db.insert(studyShares).values(values).onConflictDoNothing().returning();
      return row;
    },

    async findShare(id: string): Promise<ShareRow | undefined> {
      const [row] = await db.select().from(studyShares).where(eq(studyShares.id, id)).limit(1);
      return row;
    },

    /** Ends a live share; undefined when it was not live. */
    async revoke(id: string, at: Date): Promise<ShareRow | undefined> {
      const [row] = await db
        .update(studyShares)
        .set({ revokedAt: at })
        .where(and(eq(studyShares.id, id), isNull(studyShares.revokedAt)))
        .returning();
      return row;
    },

    /** Gives a live, not yet accepted share to an account. */
    async attach(id: string, userId: string): Promise<ShareRow | undefined> {
      const [row] = await db
        .update(studyShares)
        .set({ targetUserId: userId })
        .where(and(eq(studyShares.id, id), isNull(studyShares.revokedAt), isNull(studyShares.targetUserId)))
        .returning();
      return row;
    },

    /** Gives every live share still waiting for this email to the account that verified it. */
    async attachPendingByEmail(emailNormalized: string, userId: string): Promise<number> {
      const rows = await db
        .update(studyShares)
        .set({ targetUserId: userId })
        .where(
          and(
            eq(studyShares.emailNormalized, emailNormalized),
            isNull(studyShares.targetUserId),
            isNull(studyShares.revokedAt),
            ne(studyShares.ownerId, userId),
          ),
        )
        .returning({ id: studyShares.id });
      return rows.length;
    },

    /** Marks the recipient's first open; the share when this was the first. */
    async markFirstOpen(studyId: string, userId: string, at: Date): Promise<ShareRow | undefined> {
      const [row] = await db
        .update(studyShares)
        .set({ firstOpenedAt: at })
        .where(
          and(
            eq(studyShares.studyId, studyId),
            eq(studyShares.targetUserId, userId),
            isNull(studyShares.revokedAt),
            isNull(studyShares.firstOpenedAt),
          ),
        )
        .returning();
      return row;
    },
  };
}

/** Shares as their lists show them (with study and recipient), and the receipts' audited events. */
function createShareViewsRepository(db: Db) {
  const selectViews = () =>
    db
      .select(shareView)
      .from(studyShares)
      .innerJoin(studies, eq(studies.id, studyShares.studyId))
      .leftJoin(users, eq(users.id, studyShares.targetUserId));

  return {
    async findView(id: string): Promise<ShareView | undefined> {
      const [row] = await selectViews().where(eq(studyShares.id, id)).limit(1);
      return row && toView(row);
    },

    /** The live shares of a study, oldest first. */
    async listForStudy(studyId: string): Promise<ShareView[]> {
      const rows = await selectViews()
        .where(and(eq(studyShares.studyId, studyId), isNull(studyShares.revokedAt)))
        .orderBy(studyShares.createdAt, studyShares.id);
      return rows.map(toView);
    },

    /** An owner's live shares with one provider, newest first. */
    async listForProvider(ownerId: string, providerId: string): Promise<ShareView[]> {
      const rows = await selectViews()
        .where(
          and(
            eq(studyShares.ownerId, ownerId),
            eq(studyShares.providerId, providerId),
            isNull(studyShares.revokedAt),
            eq(studies.ownerId, ownerId),
            isNull(studies.deletingSince),
          ),
        )
        .orderBy(desc(studyShares.createdAt), desc(studyShares.id));
      return rows.map(toView);
    },

    /** The audited events of one study that its receipts show, newest first, with each actor's email. */
    async receiptEvents(studyId: string, limit: number) {
      return db
        .select({
          at: auditEvents.at,
          action: auditEvents.action,
          actorId: auditEvents.actorId,
          actorEmail: users.email,
          actorName: users.name,
          outcome: auditEvents.outcome,
          details: auditEvents.details,
        })
        .from(auditEvents)
        .leftJoin(users, eq(users.id, auditEvents.actorId))
        .where(
          and(
            eq(auditEvents.targetType, 'study'),
            eq(auditEvents.targetId, studyId),
            inArray(auditEvents.action, [...RECEIPT_ACTIONS]),
            or(eq(auditEvents.outcome, 'success'), inArray(auditEvents.action, LINK_USE_ACTIONS)),
          ),
        )
        .orderBy(desc(auditEvents.at), desc(auditEvents.id))
        .limit(limit);
    },
  };
}

/** A recipient's open request for a study's ownership. */
function createOwnershipRequestsRepository(db: Db) {
  return {
    /** Records a recipient's request; false when one is already open. */
    async openOwnershipRequest(studyId: string, requesterId: string, ownerId: string): Promise<boolean> {
      const rows = await db
        .insert(ownershipRequests)
        .values({ studyId, requesterId, ownerId })
        .onConflictDoNothing()
        .returning({ id: ownershipRequests.id });
      return rows.length > 0;
    },

    async hasOpenRequest(studyId: string, requesterId: string, ownerId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: ownershipRequests.id })
        .from(ownershipRequests)
        .where(
          and(
            eq(ownershipRequests.studyId, studyId),
            eq(ownershipRequests.requesterId, requesterId),
            eq(ownershipRequests.ownerId, ownerId),
            eq(ownershipRequests.status, 'open'),
          ),
        )
        .limit(1);
      return row !== undefined;
    },
  };
}

/** The transfer of a study to a new owner, in one transaction. */
function createTransferRepository(db: Db) {
  return {
    /**
     * Moves a study from `fromId` to `toId` in one transaction: the study row (locked, so of two
     * racing transfers one finds it gone), both users' storage use, its live shares (the new owner's
     * own share ends), and its ownership requests. `maxBytesOf` is the quota rule for the new owner.
     */
    async transfer(
      studyId: string,
      fromId: string,
      toId: string,
      roomFor: (
        recipient: { maxStorageBytes: number | null; usedStorageBytes: number },
        bytes: number,
      ) => boolean,
      at: Date,
    ): Promise<{ ok: true; study: StudyRow } | { ok: false; reason: TransferRefusal }> {
      return db.transaction(async (tx) => {
        const [study] = await tx
          .select()
          .from(studies)
          .where(
            and(
              eq(studies.id, studyId),
              eq(studies.ownerId, fromId),
              eq(studies.processStatus, 'completed'),
              isNull(studies.deletingSince),
            ),
          )
          .for('update')
          .limit(1);
        if (!study) return { ok: false, reason: 'gone' as const };
        // Users are locked in id order, so two transfers between the same pair cannot deadlock.
        const locked = await tx
          .select({
            id: users.id,
            maxStorageBytes: users.maxStorageBytes,
            usedStorageBytes: users.usedStorageBytes,
          })
          .from(users)
          .where(inArray(users.id, [fromId, toId]))
          .orderBy(users.id)
          .for('update');
        const recipient = locked.find((u) => u.id === toId);
        if (!recipient) return { ok: false, reason: 'gone' as const };
        if (!roomFor(recipient, study.sizeBytes)) return { ok: false, reason: 'no_room' as const };
        const [duplicate] = await tx
          .select({ id: studies.id })
          .from(studies)
          .where(
            and(
              eq(studies.ownerId, toId),
              eq(studies.studyInstanceUid, study.studyInstanceUid),
              isNull(studies.deletingSince),
            ),
          )
          .limit(1);
        if (duplicate) return { ok: false, reason: 'duplicate' as const };

        const [moved] = await tx
          .update(studies)
          .set({ ownerId: toId, updatedAt: at })
          .where(eq(studies.id, studyId))
          .returning();
        await adjustStorageUse(tx, fromId, -study.sizeBytes);
        await adjustStorageUse(tx, toId, study.sizeBytes);
        await tx
          .update(studyShares)
          .set({ revokedAt: at })
          .where(
            and(
              eq(studyShares.studyId, studyId),
              eq(studyShares.targetUserId, toId),
              isNull(studyShares.revokedAt),
            ),
          );
        await tx
          .update(studyShares)
          .set({ ownerId: toId })
          .where(and(eq(studyShares.studyId, studyId), isNull(studyShares.revokedAt)));
        await tx
          .update(ownershipRequests)
          .set({
            status: sql`case when ${ownershipRequests.requesterId} = ${toId} then 'approved' else 'closed' end`,
            decidedAt: at,
          })
          .where(and(eq(ownershipRequests.studyId, studyId), eq(ownershipRequests.status, 'open')));
        return { ok: true as const, study: moved! };
      });
    },
  };
}

/** Study shares, ownership requests and the moves of a study between owners. */
export function createSharingRepository(db: Db) {
  return {
    ...createSharesRepository(db),
    ...createShareViewsRepository(db),
    ...createOwnershipRequestsRepository(db),
    ...createTransferRepository(db),
  };
}
export type SharingRepository = ReturnType<typeof createSharingRepository>;
