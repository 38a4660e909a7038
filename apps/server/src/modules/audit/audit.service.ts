import type { Logger } from 'pino';
import type { AuditEvent } from './audit-event';
import type { AuditRepository } from './audit.repository';

export type { AuditEvent, AuditOutcome } from './audit-event';

export type AuditRecorder = (event: AuditEvent) => Promise<void>;

/**
 * The one helper every module calls. A failed audit write is logged loudly; callers that must
 * not proceed without a record await it (it throws).
 */
export function createAuditRecorder(repo: Pick<AuditRepository, 'insert'>, log: Logger): AuditRecorder {
  return async (event) => {
    try {
      await repo.insert(event);
    } catch (err) {
      log.error({ err, action: event.action }, 'audit write failed');
      throw err;
    }
  };
}
