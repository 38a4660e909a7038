import type { Health } from '@mi/contracts/admin';

/** Each is checked by a cheap round trip that throws when it cannot be used. */
interface Deps {
  database: { kind: Health['database']['kind']; check(): Promise<unknown> };
  storage: { kind: Health['storage']['kind']; check(): Promise<unknown> };
  queue: { check(): Promise<unknown> };
}

const ok = (p: Promise<unknown>) => p.then(() => true).catch(() => false);

/** Liveness of the three things a request needs: database, storage and job queue. */
export function createHealthService(deps: Deps) {
  return {
    async check(): Promise<Health> {
      const [db, storage, queue] = await Promise.all([
        ok(deps.database.check()),
        ok(deps.storage.check()),
        ok(deps.queue.check()),
      ]);
      const healthy = db && storage && queue;
      return {
        status: healthy ? 'ok' : 'degraded',
        database: { ok: db, kind: deps.database.kind },
        storage: { ok: storage, kind: deps.storage.kind },
        queue: { ok: queue },
      };
    },
  };
}
export type HealthService = ReturnType<typeof createHealthService>;
