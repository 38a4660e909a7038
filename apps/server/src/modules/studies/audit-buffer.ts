import type { Logger } from 'pino';
import type { AuditRepository, AuditRowJson } from '../audit';
import type { AuditEvent } from '../audit';

/** How often buffered events are written. */
export const AUDIT_FLUSH_MS = 100;
/** Events per insert statement. */
const MAX_BATCH = 500;

export interface AuditBuffer {
  /** Queues the event; it is written within AUDIT_FLUSH_MS, in one insert with its neighbours. */
  record(event: AuditEvent): void;
  /** Writes everything queued so far (also called on shutdown). */
  flush(): Promise<void>;
  /** Stops the timer after a final flush. */
  close(): Promise<void>;
}

/**
 * Audit events of hot, read-only routes (the studies list is polled by every open dashboard): one
 * multi-row insert every 100 ms instead of one insert per request, off the response's path. A
 * failed write keeps the events queued for the next attempt, so a database hiccup delays them
 * rather than dropping them; only a crash of the process within the last interval can lose any.
 */
export function createAuditBuffer(
  repo: Pick<AuditRepository, 'insertBatch'>,
  log: Logger,
  flushMs = AUDIT_FLUSH_MS,
): AuditBuffer {
  let queue: AuditRowJson[] = [];
  let writing: Promise<void> | null = null;
  let closed = false;

  async function writeQueued(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      try {
        await repo.insertBatch(batch);
        queue = queue.slice(batch.length);
      } catch (err) {
        log.error({ err, pending: queue.length }, 'audit write failed; will retry');
        return;
      }
    }
  }

  function flush(): Promise<void> {
    // One writer at a time keeps events in order and never writes one twice.
    writing ??= writeQueued().finally(() => {
      writing = null;
    });
    return writing;
  }

  const timer = setInterval(() => {
    if (queue.length > 0) void flush();
  }, flushMs);
  timer.unref();

  return {
    record(event) {
      queue.push({
        // The time of the request, not of the write.
        at: new Date().toISOString(),
        actor_id: event.actorId ?? null,
        actor_role: event.actorRole ?? null,
        action: event.action,
        target_type: event.targetType ?? null,
        target_id: event.targetId ?? null,
        outcome: event.outcome,
        request_id: event.requestId ?? null,
        ip: event.ip ?? null,
        details: event.details ?? null,
      });
      // Late requests during shutdown are written at once rather than waiting for a timer that is gone.
      if (closed) void flush();
    },
    async flush() {
      await writing;
      await flush();
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await writing;
      await flush();
      if (queue.length > 0)
        log.error({ pending: queue.length }, 'audit events could not be written before shutdown');
    },
  };
}
