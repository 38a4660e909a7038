import type { Logger } from 'pino';
import type { Db } from '../../db/client';
import { auditEvents } from '../../db/schema/index';

export type AuditOutcome = 'success' | 'failure' | 'denied';

export interface AuditEvent {
  actorId?: string | null;
  actorRole?: string | null;
  /** dotted verb, e.g. `auth.login`, `study.download` */
  action: string;
  targetType?: string;
  targetId?: string | null;
  outcome: AuditOutcome;
  requestId?: string;
  ip?: string;
  /** Never patient names, passwords, tokens or codes. */
  details?: Record<string, unknown>;
}

export type AuditRecorder = (event: AuditEvent) => Promise<void>;

/** The row an event becomes; shared by the direct recorder and the batched one. */
export function toAuditRow(event: AuditEvent): typeof auditEvents.$inferInsert {
  return {
    actorId: event.actorId ?? null,
    actorRole: event.actorRole ?? null,
    action: event.action,
    targetType: event.targetType ?? null,
    targetId: event.targetId ?? null,
    outcome: event.outcome,
    requestId: event.requestId ?? null,
    ip: event.ip ?? null,
    details: event.details ?? null,
  };
}

/**
 * The one helper every module calls. A failed audit write is logged loudly; callers that must
 * not proceed without a record await it (it throws).
 */
export function createAuditRecorder(db: Db, log: Logger): AuditRecorder {
  return async (event) => {
    try {
      await db.insert(auditEvents).values(toAuditRow(event));
    } catch (err) {
      log.error({ err, action: event.action }, 'audit write failed');
      throw err;
    }
  };
}
