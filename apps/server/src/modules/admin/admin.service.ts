import type { FailedJob, OutboxMessage } from '@mi/contracts/admin';
import type { JobQueue } from '../../jobs/queue';
import type { OutboxRepository } from '../../ports/mail/outbox.repository';
import type { AuditRecorder } from '../audit/audit.service';
import type { AuthenticatedSession, RequestMeta } from '../auth/auth.service';

/** Messages the outbox page lists, newest first. */
const OUTBOX_PAGE = 200;

interface Deps {
  outbox: Pick<OutboxRepository, 'latest'>;
  queue: Pick<JobQueue, 'listFailed'>;
  audit: AuditRecorder;
}

/** Admin area: the mail outbox and the jobs that failed after their retries. */
export function createAdminService(deps: Deps) {
  return {
    /** The mail kept in the outbox; reading it is audited (messages carry personal links). */
    async outbox(admin: AuthenticatedSession, meta: RequestMeta): Promise<OutboxMessage[]> {
      const rows = await deps.outbox.latest(OUTBOX_PAGE);
      await deps.audit({
        actorId: admin.user.id,
        actorRole: 'admin',
        action: 'admin.outbox.read',
        outcome: 'success',
        requestId: meta.requestId,
        ip: meta.ip,
      });
      return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
    },

    failedJobs(): Promise<FailedJob[]> {
      return deps.queue.listFailed();
    },
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
