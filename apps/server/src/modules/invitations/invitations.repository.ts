import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { invitations, professionalProfiles, users } from '../../db/schema/index';

export type InvitationRow = typeof invitations.$inferSelect;
type NewUserRow = typeof users.$inferInsert;
type UserRow = typeof users.$inferSelect;

/** Why a referral could not complete a registration. */
export type ReferralRefusal = 'not_live' | 'email_taken';

/** Data access for invitations (invite links, emailed invitations, provider referrals). */
export function createInvitationsRepository(db: Db) {
  return {
    async create(values: {
      inviterId: string;
      kind: 'direct_upload' | 'provider';
      email: string | null;
      allowedRoles: string[];
      expiresAt: Date;
      createdAt: Date;
    }): Promise<InvitationRow> {
      const [row] = await db.insert(invitations).values(values).returning();
      if (!row) throw new Error('invitation not created');
      return row;
    },

    async findById(id: string): Promise<InvitationRow | undefined> {
      const [row] = await db.select().from(invitations).where(eq(invitations.id, id)).limit(1);
      return row;
    },

    /** The inviter's shareable link (no email) that is neither revoked nor expired, newest first. */
    async liveLinkOf(inviterId: string, at: Date): Promise<InvitationRow | undefined> {
      const [row] = await db
        .select()
        .from(invitations)
        .where(
          and(
            eq(invitations.inviterId, inviterId),
            eq(invitations.kind, 'direct_upload'),
            isNull(invitations.email),
            isNull(invitations.revokedAt),
            gt(invitations.expiresAt, at),
          ),
        )
        .orderBy(desc(invitations.createdAt))
        .limit(1);
      return row;
    },

    /** Revokes every shareable link of the inviter still open; returns their ids. */
    async revokeLinks(inviterId: string, at: Date): Promise<string[]> {
      const rows = await db
        .update(invitations)
        .set({ revokedAt: at })
        .where(
          and(
            eq(invitations.inviterId, inviterId),
            eq(invitations.kind, 'direct_upload'),
            isNull(invitations.email),
            isNull(invitations.revokedAt),
          ),
        )
        .returning({ id: invitations.id });
      return rows.map((r) => r.id);
    },

    async countUpload(id: string): Promise<void> {
      await db
        .update(invitations)
        .set({ uploads: sql`${invitations.uploads} + 1` })
        .where(eq(invitations.id, id));
    },

    /**
     * Creates the account and uses the referral in one transaction: the invitation row is locked,
     * must still be live and unused, and is marked used by the new account, so two registrations
     * racing with one link cannot both succeed.
     */
    async registerWithReferral(
      invitationId: string,
      at: Date,
      values: NewUserRow,
      profile?: Omit<typeof professionalProfiles.$inferInsert, 'userId'>,
    ): Promise<{ user: UserRow } | { refused: ReferralRefusal }> {
      return db.transaction(async (tx) => {
        const [live] = await tx
          .select({ id: invitations.id })
          .from(invitations)
          .where(
            and(
              eq(invitations.id, invitationId),
              isNull(invitations.revokedAt),
              isNull(invitations.usedAt),
              gt(invitations.expiresAt, at),
            ),
          )
          .for('update');
        if (!live) return { refused: 'not_live' as const };
        const [user] = await tx
          .insert(users)
          .values(values)
          .onConflictDoNothing({ target: users.emailNormalized })
          .returning();
        if (!user) return { refused: 'email_taken' as const };
        if (profile) await tx.insert(professionalProfiles).values({ ...profile, userId: user.id });
        await tx
          .update(invitations)
          .set({ usedAt: at, usedBy: user.id })
          .where(eq(invitations.id, invitationId));
        return { user };
      });
    },
  };
}
export type InvitationsRepository = ReturnType<typeof createInvitationsRepository>;
