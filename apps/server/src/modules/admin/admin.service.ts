import { statfs } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  type AdminHealth,
  type AdminUser,
  type AuditEventDto,
  type AuditQuery,
  type FailedJob,
  type OutboxMessage,
  type ReauthBody,
} from '@mi/contracts/admin';
import { BYTES_PER_GB } from '@mi/contracts/rules';
import { AppError } from '../../http/app-error';
import type { JobQueue } from '../../jobs/queue';
import type { OutboxRepository } from '../../ports/mail/outbox.repository';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { MfaService } from '../auth';
import { verifyPassword } from '../auth';
import type { IssuedSession, IssueSession } from '../auth';
import type { SessionsRepository } from '../auth';
import type { Throttle } from '../rate-limit';
import type { HealthService } from '../health';
import type { UsersRepository } from '../accounts';
import type { RecentSignInRule } from './recent-sign-in';
import type { AdminRepository, AdminUserRow, AuditEventRow, AuditFilter } from './admin.repository';

/** Messages the outbox page lists, newest first. */
const OUTBOX_PAGE = 200;
/** Wrong passwords a re-authenticating admin may give per window before waiting. */
const MAX_REAUTH_FAILURES = 5;
const REAUTH_FAILURE_WINDOW_MS = 15 * 60_000;
const EXPORT_BATCH = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export { REAUTH_MESSAGE } from './recent-sign-in';

interface Deps {
  /** The recent sign-in rule of every admin change (recent-sign-in.ts). */
  requireRecentSignIn: RecentSignInRule;
  repo: AdminRepository;
  users: Pick<UsersRepository, 'findById' | 'update'>;
  sessions: Pick<SessionsRepository, 'revokeAllForUser' | 'revoke'>;
  mfa: Pick<MfaService, 'begin' | 'verify'>;
  issueSession: IssueSession;
  throttle: Pick<Throttle, 'hit' | 'count' | 'clear'>;
  outbox: Pick<OutboxRepository, 'latest'>;
  queue: Pick<JobQueue, 'listFailed' | 'retryFailed'>;
  health: Pick<HealthService, 'check'>;
  audit: AuditRecorder;
  /** Where the disk-free figure is read (DATA_DIR). */
  dataDir: string;
  defaultMaxStorageGB: number;
  /**
   * A disabled professional can no longer deliver: their paid orders are refunded at once
   * (modules/analysis, refundUndeliverable).
   */
  onFulfillerLost?: () => Promise<unknown>;
  now: () => Date;
}

const toAuditDto = (r: AuditEventRow): AuditEventDto => ({
  id: r.id,
  at: r.at.toISOString(),
  actorId: r.actorId,
  actorRole: r.actorRole,
  action: r.action,
  targetType: r.targetType,
  targetId: r.targetId,
  outcome: r.outcome,
  ip: r.ip,
  details: r.details ?? null,
});

const CSV_COLUMNS = [
  'id',
  'at',
  'actorId',
  'actorRole',
  'action',
  'targetType',
  'targetId',
  'outcome',
  'ip',
  'details',
] as const;

/** One CSV field: quoted when needed; a leading =, +, - or @ is defused so spreadsheets do not run it. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Users as the console shows them, audit records, and the admin's own session. */
function createAdminTools(deps: Deps) {
  const { now } = deps;
  const defaultMaxBytes = Math.round(deps.defaultMaxStorageGB * BYTES_PER_GB);

  const toUser = (u: AdminUserRow): AdminUser => ({
    id: u.id,
    name: u.name,
    email: u.email,
    role: u.role,
    accountStatus: u.accountStatus,
    emailVerified: u.emailVerifiedAt !== null,
    createdAt: u.createdAt.toISOString(),
    lastSignInAt: u.lastSignInAt?.toISOString() ?? null,
    mfaEnabled: u.mfaEnabled,
    mfaMethod: u.mfaEnabled ? u.mfaMethod : null,
    usedStorageBytes: u.usedStorageBytes,
    maxStorageBytes: u.maxStorageBytes ?? defaultMaxBytes,
    quotaOverride: u.maxStorageBytes !== null,
  });

  const audit = (
    admin: AuthenticatedSession,
    action: string,
    meta: RequestMeta,
    extra: {
      outcome?: 'success' | 'failure' | 'denied';
      targetType?: string;
      targetId?: string;
      details?: Record<string, unknown>;
    } = {},
  ) =>
    deps.audit({
      actorId: admin.user.id,
      actorRole: admin.user.role,
      action,
      outcome: extra.outcome ?? 'success',
      targetType: extra.targetType,
      targetId: extra.targetId,
      requestId: meta.requestId,
      ip: meta.ip,
      details: extra.details,
    });

  async function findUser(id: string): Promise<AdminUserRow> {
    const found = UUID.test(id) ? await deps.repo.findUser(id) : undefined;
    if (!found) throw new AppError('NOT_FOUND', 'User not found');
    return found;
  }

  /** Every admin change: the session must be from the last few minutes (a new sign-in renews it). */
  const requireRecentSignIn = deps.requireRecentSignIn;

  /** The fresh session replaces the one that asked (same browser). */
  async function replaceSession(admin: AuthenticatedSession, issued: IssuedSession) {
    await deps.sessions.revoke(admin.session.id, 'reauthenticated', now());
    return {
      status: 'ok' as const,
      message: 'Signed in again',
      authToken: issued.authToken,
      refreshToken: issued.refreshToken,
    };
  }

  /** Where an enabled account returns: a professional to the verification decision they had. */
  async function statusBeforeDisabling(u: AdminUserRow): Promise<'active' | 'pending' | 'rejected'> {
    if (u.role !== 'professional') return 'active';
    if ((await deps.repo.professionalReviewedAt(u.id)) === null) return 'pending';
    return u.rejectionReason === null ? 'active' : 'rejected';
  }

  return {
    now,
    defaultMaxBytes,
    toUser,
    audit,
    findUser,
    requireRecentSignIn,
    replaceSession,
    statusBeforeDisabling,
  };
}
type AdminTools = ReturnType<typeof createAdminTools>;

/** The admin's own recent sign-in, renewed from the console. */
function createAdminSession(deps: Deps, tools: AdminTools) {
  const { audit, replaceSession } = tools;
  return {
    /**
     * Signing in again from the console: the password, then (when the admin has a second factor)
     * the code, through the same second-factor check as sign-in. Ends with a new session.
     */
    async reauthenticate(admin: AuthenticatedSession, body: ReauthBody, meta: RequestMeta) {
      const user = (await deps.users.findById(admin.user.id)) ?? admin.user;
      if ('mfaToken' in body) {
        const issued = await deps.mfa.verify(
          { mfaSecret: body.code, email: user.email, userId: user.id },
          body.mfaToken,
          meta,
        );
        return replaceSession(admin, issued);
      }
      const key = `admin:reauth:${user.id}`;
      if ((await deps.throttle.count(key, REAUTH_FAILURE_WINDOW_MS)) >= MAX_REAUTH_FAILURES) {
        await audit(admin, 'admin.reauth', meta, { outcome: 'denied', details: { reason: 'throttled' } });
        throw new AppError('RATE_LIMITED', 'Too many attempts. Please wait 15 minutes and try again.');
      }
      if (!user.passwordHash || !(await verifyPassword(user.passwordHash, body.password))) {
        await deps.throttle.hit(key);
        await audit(admin, 'admin.reauth', meta, {
          outcome: 'failure',
          details: { reason: 'wrong_password' },
        });
        throw new AppError('INVALID_CREDENTIALS', 'Incorrect password. Please try again.');
      }
      await deps.throttle.clear(key);
      if (user.mfaEnabled) {
        const pending = await deps.mfa.begin(user, meta, 'admin_reauth');
        return {
          status: 'mfa' as const,
          message: pending.message,
          method: pending.method,
          mfaToken: pending.mfaToken,
        };
      }
      return replaceSession(admin, await deps.issueSession(user, meta, 'admin_reauth'));
    },
  };
}

/** Keeping the platform running: outgoing mail, failed jobs, health. */
function createAdminOperations(deps: Deps, tools: AdminTools) {
  const { audit, requireRecentSignIn } = tools;
  return {
    /** The mail kept in the outbox; reading it is audited (messages carry personal links). */
    async outbox(admin: AuthenticatedSession, meta: RequestMeta): Promise<OutboxMessage[]> {
      const rows = await deps.outbox.latest(OUTBOX_PAGE);
      await audit(admin, 'admin.outbox.read', meta);
      return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
    },

    failedJobs(): Promise<FailedJob[]> {
      return deps.queue.listFailed();
    },

    async retryJob(admin: AuthenticatedSession, id: string, meta: RequestMeta): Promise<void> {
      await requireRecentSignIn(admin, 'admin.job.retry', meta);
      const done = UUID.test(id) && (await deps.queue.retryFailed(id));
      if (!done) throw new AppError('NOT_FOUND', 'No failed job with this id');
      await audit(admin, 'admin.job.retry', meta, { targetType: 'job', targetId: id });
    },

    async health(): Promise<AdminHealth> {
      const [base, depth, disk] = await Promise.all([
        deps.health.check(),
        deps.repo.queueDepth().catch(() => null),
        statfs(deps.dataDir)
          .then((s) => ({ freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize }))
          .catch(() => null),
      ]);
      return { ...base, queue: { ...base.queue, depth }, disk };
    },
  };
}

/** Accounts as admins manage them: listed, disabled and enabled, second factor reset, storage limit. */
function createAdminUsers(deps: Deps, tools: AdminTools) {
  const { now, toUser, audit, findUser, requireRecentSignIn, statusBeforeDisabling } = tools;
  return {
    /** Accounts by name or email; listing them is audited (names and emails are personal data). */
    async listUsers(
      admin: AuthenticatedSession,
      query: { q?: string; page: number; limit: number },
      meta: RequestMeta,
    ) {
      const { rows, total } = await deps.repo.searchUsers(
        query.q || undefined,
        query.limit,
        (query.page - 1) * query.limit,
      );
      await audit(admin, 'admin.users.search', meta, { details: { page: query.page, hasQuery: !!query.q } });
      return { data: rows.map(toUser), page: query.page, limit: query.limit, total };
    },

    async getUser(admin: AuthenticatedSession, id: string, meta: RequestMeta): Promise<AdminUser> {
      const user = toUser(await findUser(id));
      await audit(admin, 'admin.user.read', meta, { targetType: 'user', targetId: id });
      return user;
    },

    /**
     * Disables an account: no sign-in from now on; its sessions end at once, and with them its
     * viewer grants and upload credentials (they are bound to a session and to an active account).
     */
    async disableUser(
      admin: AuthenticatedSession,
      id: string,
      reason: string | undefined,
      meta: RequestMeta,
    ): Promise<AdminUser> {
      await requireRecentSignIn(admin, 'user.disable', meta);
      const found = await findUser(id);
      if (found.id === admin.user.id)
        throw new AppError('BAD_REQUEST', 'You cannot disable your own account.');
      if (found.accountStatus === 'disabled') return toUser(found);
      const at = now();
      await deps.users.update(id, { accountStatus: 'disabled', updatedAt: at });
      const ended = await deps.sessions.revokeAllForUser(id, 'account_disabled', { at });
      await audit(admin, 'user.disable', meta, {
        targetType: 'user',
        targetId: id,
        details: { from: found.accountStatus, sessionsEnded: ended, ...(reason ? { reason } : {}) },
      });
      if (found.role === 'professional') await deps.onFulfillerLost?.();
      return toUser(await findUser(id));
    },

    /**
     * Enables a disabled account again. A professional goes back to the verification decision they
     * had (waiting, approved or rejected); everyone else is active.
     */
    async enableUser(admin: AuthenticatedSession, id: string, meta: RequestMeta): Promise<AdminUser> {
      await requireRecentSignIn(admin, 'user.enable', meta);
      const found = await findUser(id);
      if (found.accountStatus !== 'disabled') return toUser(found);
      const to = await statusBeforeDisabling(found);
      await deps.users.update(id, { accountStatus: to, updatedAt: now() });
      await audit(admin, 'user.enable', meta, { targetType: 'user', targetId: id, details: { to } });
      return toUser(await findUser(id));
    },

    /**
     * Turns the user's second factor off (a lost phone or mailbox): authenticator secret and recovery
     * codes are gone; they sign in with their password and may enrol again. Their sessions end.
     */
    async resetMfa(admin: AuthenticatedSession, id: string, meta: RequestMeta): Promise<AdminUser> {
      await requireRecentSignIn(admin, 'user.mfa_reset', meta);
      const found = await findUser(id);
      const at = now();
      await deps.users.update(id, {
        mfaEnabled: false,
        mfaMethod: null,
        totpSecret: null,
        totpPendingSecret: null,
        totpLastStep: null,
        updatedAt: at,
      });
      await deps.repo.deleteRecoveryCodes(id);
      if (found.id !== admin.user.id) await deps.sessions.revokeAllForUser(id, 'mfa_reset', { at });
      await audit(admin, 'user.mfa_reset', meta, {
        targetType: 'user',
        targetId: id,
        details: { wasEnabled: found.mfaEnabled, method: found.mfaMethod },
      });
      return toUser(await findUser(id));
    },

    async setQuota(
      admin: AuthenticatedSession,
      id: string,
      maxStorageGB: number | null,
      meta: RequestMeta,
    ): Promise<AdminUser> {
      await requireRecentSignIn(admin, 'user.quota_change', meta);
      const found = await findUser(id);
      const bytes = maxStorageGB === null ? null : Math.round(maxStorageGB * BYTES_PER_GB);
      await deps.users.update(id, { maxStorageBytes: bytes, updatedAt: now() });
      await audit(admin, 'user.quota_change', meta, {
        targetType: 'user',
        targetId: id,
        details: { from: found.maxStorageBytes, to: bytes },
      });
      return toUser(await findUser(id));
    },
  };
}

/** The audit log, read and exported. */
function createAdminAuditLog(deps: Deps, tools: AdminTools) {
  const { audit, requireRecentSignIn } = tools;
  return {
    async auditLog(admin: AuthenticatedSession, query: AuditQuery, meta: RequestMeta) {
      const { page, limit, ...filter } = query;
      const rows = await deps.repo.listAudit(filter, limit + 1, (page - 1) * limit);
      await audit(admin, 'admin.audit.read', meta, { details: { filter, page } });
      return { data: rows.slice(0, limit).map(toAuditDto), page, limit, hasMore: rows.length > limit };
    },

    /** The filtered audit log as CSV, streamed in batches (any size, constant memory). */
    async exportAudit(
      admin: AuthenticatedSession,
      filter: AuditFilter,
      meta: RequestMeta,
    ): Promise<Readable> {
      await requireRecentSignIn(admin, 'admin.audit.export', meta);
      await audit(admin, 'admin.audit.export', meta, { details: { filter } });
      const repo = deps.repo;
      async function* lines() {
        yield `${CSV_COLUMNS.join(',')}\r\n`;
        let before: number | null = null;
        for (;;) {
          const batch = await repo.auditBatch(filter, before, EXPORT_BATCH);
          if (batch.length === 0) return;
          yield batch
            .map((r) => {
              const dto = toAuditDto(r);
              return `${CSV_COLUMNS.map((c) => csvField(dto[c])).join(',')}\r\n`;
            })
            .join('');
          before = batch[batch.length - 1]!.id;
          if (batch.length < EXPORT_BATCH) return;
        }
      }
      return Readable.from(lines());
    },
  };
}

/**
 * The admin console: accounts (search, view, disable and enable, reset the second factor, quota),
 * the audit log (pages and CSV export), the outbox, failed jobs (retry) and a health card. Every
 * change needs a recent sign-in (`requireRecentSignIn`) and is audited.
 */
export function createAdminService(deps: Deps) {
  const tools = createAdminTools(deps);
  return {
    ...createAdminSession(deps, tools),
    ...createAdminOperations(deps, tools),
    ...createAdminUsers(deps, tools),
    ...createAdminAuditLog(deps, tools),
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
