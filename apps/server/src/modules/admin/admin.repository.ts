import { and, asc, count, desc, eq, gte, ilike, lt, lte, max, or, sql, type SQL } from 'drizzle-orm';
import type { AuditQuery } from '@mi/contracts/admin';
import type { Db } from '../../db/client';
import { auditEvents, mfaRecoveryCodes, professionalProfiles, sessions, users } from '../../db/schema/index';
import { JOB_SCHEMA } from '../../jobs/queue';

export type AdminUserRow = typeof users.$inferSelect & { lastSignInAt: Date | null };
export type AuditEventRow = typeof auditEvents.$inferSelect;
export type AuditFilter = Omit<AuditQuery, 'page' | 'limit'>;

/** `%` and `_` are wildcards of LIKE: a search for them means the characters themselves. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function auditWhere(f: AuditFilter): SQL | undefined {
  return and(
    f.userId
      ? or(
          eq(auditEvents.actorId, f.userId),
          and(eq(auditEvents.targetType, 'user'), eq(auditEvents.targetId, f.userId)),
        )
      : undefined,
    f.studyId
      ? or(
          and(eq(auditEvents.targetType, 'study'), eq(auditEvents.targetId, f.studyId)),
          sql`${auditEvents.details}->>'studyId' = ${f.studyId}`,
        )
      : undefined,
    f.action ? ilike(auditEvents.action, `${likeEscape(f.action)}%`) : undefined,
    f.from ? gte(auditEvents.at, new Date(f.from)) : undefined,
    f.to ? lte(auditEvents.at, new Date(f.to)) : undefined,
  );
}

/** What the admin console reads: accounts with their last sign-in, the audit log, queue depth. */
export function createAdminRepository(db: Db) {
  const lastSignIn = db
    .select({ userId: sessions.userId, at: max(sessions.createdAt).as('last_sign_in_at') })
    .from(sessions)
    .groupBy(sessions.userId)
    .as('last_sign_in');
  const userColumns = { user: users, lastSignInAt: lastSignIn.at };
  const toRow = (r: {
    user: typeof users.$inferSelect;
    lastSignInAt: Date | string | null;
  }): AdminUserRow => ({
    ...r.user,
    lastSignInAt: r.lastSignInAt ? new Date(r.lastSignInAt) : null,
  });

  return {
    /** Accounts whose name or email contains `q` (any letter case), newest first. */
    async searchUsers(q: string | undefined, limit: number, offset: number) {
      const where = q
        ? or(ilike(users.email, `%${likeEscape(q)}%`), ilike(users.name, `%${likeEscape(q)}%`))
        : undefined;
      const rows = await db
        .select(userColumns)
        .from(users)
        .leftJoin(lastSignIn, eq(lastSignIn.userId, users.id))
        .where(where)
        .orderBy(desc(users.createdAt), asc(users.id))
        .limit(limit)
        .offset(offset);
      const [total] = await db.select({ n: count() }).from(users).where(where);
      return { rows: rows.map(toRow), total: Number(total?.n ?? 0) };
    },

    async findUser(id: string): Promise<AdminUserRow | undefined> {
      const [row] = await db
        .select(userColumns)
        .from(users)
        .leftJoin(lastSignIn, eq(lastSignIn.userId, users.id))
        .where(eq(users.id, id))
        .limit(1);
      return row ? toRow(row) : undefined;
    },

    /** When an admin decided on the professional's licence; null when never (or no profile). */
    async professionalReviewedAt(userId: string): Promise<Date | null> {
      const [row] = await db
        .select({ at: professionalProfiles.reviewedAt })
        .from(professionalProfiles)
        .where(eq(professionalProfiles.userId, userId))
        .limit(1);
      return row?.at ?? null;
    },

    /** Recovery codes go with the second factor they back up. */
    async deleteRecoveryCodes(userId: string): Promise<void> {
      await db.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, userId));
    },

    /** One page of the audit log, newest first; one row more than asked says whether a next page exists. */
    listAudit(filter: AuditFilter, limit: number, offset: number): Promise<AuditEventRow[]> {
      return db
        .select()
        .from(auditEvents)
        .where(auditWhere(filter))
        .orderBy(desc(auditEvents.id))
        .limit(limit)
        .offset(offset);
    },

    /** The next batch of the export, newest first, below `beforeId` (keyset: no growing offsets). */
    auditBatch(filter: AuditFilter, beforeId: number | null, limit: number): Promise<AuditEventRow[]> {
      return db
        .select()
        .from(auditEvents)
        .where(and(auditWhere(filter), beforeId === null ? undefined : lt(auditEvents.id, beforeId)))
        .orderBy(desc(auditEvents.id))
        .limit(limit);
    },

    /** Jobs waiting or running (queued, waiting for a retry, active). */
    async queueDepth(): Promise<number> {
      const res = await db.execute(
        sql.raw(
          `select count(*)::int as n from ${JOB_SCHEMA}.job where state in ('created', 'retry', 'active')`,
        ),
      );
      const rows = (Array.isArray(res) ? res : (res as { rows: unknown[] }).rows) as Array<{ n: number }>;
      return Number(rows[0]?.n ?? 0);
    },
  };
}
export type AdminRepository = ReturnType<typeof createAdminRepository>;
