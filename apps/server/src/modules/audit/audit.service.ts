import type { Logger } from 'pino';
import type { AuditEvent, AuditOutcome } from './audit-event';
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

/** Who did something, as services hold them; null for the server's own jobs. */
export interface AuditActor {
  id: string;
  role?: string | null;
}

/** What an audit call names besides the action: the request it came in, when there was one. */
export interface AuditRequest {
  requestId?: string;
  ip?: string;
}

/**
 * The recorder in the form services call it: actor, action, target, request, details, outcome.
 * Target ids are cut to the column's 64 characters (a malformed id from a URL is still recorded).
 */
export function actorAudit(record: AuditRecorder) {
  return (
    actor: AuditActor | null,
    action: string,
    target: { type: string; id: string | null },
    meta: AuditRequest | undefined,
    details?: Record<string, unknown>,
    outcome: AuditOutcome = 'success',
  ) =>
    record({
      actorId: actor?.id ?? null,
      actorRole: actor?.role ?? null,
      action,
      outcome,
      targetType: target.type,
      targetId: target.id?.slice(0, 64) ?? null,
      requestId: meta?.requestId,
      ip: meta?.ip,
      details,
    });
}
