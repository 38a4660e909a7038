import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { auditEvents } from '../../db/schema/index';
import type { AuditEvent } from './audit-event';

/** One `audit_events` row as JSON, keyed by column name: the batched writer's format. */
export interface AuditRowJson {
  at: string;
  actor_id: string | null;
  actor_role: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  outcome: AuditEvent['outcome'];
  request_id: string | null;
  ip: string | null;
  details: Record<string, unknown> | null;
}

/** The append-only audit table: rows are only ever added. */
export function createAuditRepository(db: Db) {
  return {
    async insert(event: AuditEvent): Promise<void> {
      await db.insert(auditEvents).values({
        actorId: event.actorId ?? null,
        actorRole: event.actorRole ?? null,
        action: event.action,
        targetType: event.targetType ?? null,
        targetId: event.targetId ?? null,
        outcome: event.outcome,
        requestId: event.requestId ?? null,
        ip: event.ip ?? null,
        details: event.details ?? null,
      });
    },

    /**
     * Many rows in one statement. The batch travels as one JSON parameter: building a statement with
     * ten parameters per row costs the query builder more CPU than the requests being audited.
     */
    async insertBatch(batch: AuditRowJson[]): Promise<void> {
      await db.execute(sql`
    insert into audit_events (at, actor_id, actor_role, action, target_type, target_id, outcome, request_id, ip, details)
    select at, actor_id, actor_role, action, target_type, target_id, outcome, request_id, ip, details
    from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as r(
      at timestamptz, actor_id uuid, actor_role text, action text, target_type text, target_id text,
      outcome text, request_id text, ip text, details jsonb
    )`);
    },
  };
}
export type AuditRepository = ReturnType<typeof createAuditRepository>;
