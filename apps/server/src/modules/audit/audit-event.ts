export type AuditOutcome = 'success' | 'failure' | 'denied';

/** One entry of the append-only audit trail: who did what to which target, and how it ended. */
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
