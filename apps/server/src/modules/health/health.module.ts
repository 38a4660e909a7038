import { healthRoutes } from './health.routes';
import { createHealthService } from './health.service';

type ServiceDeps = Parameters<typeof createHealthService>[0];

export interface HealthModuleDeps extends Pick<ServiceDeps, 'storage'> {
  database: Pick<ServiceDeps['database'], 'kind'> & { ping(): Promise<unknown> };
  queue: { ping(): Promise<unknown> };
}

/** Liveness of database, storage and queue. */
export function createHealthModule({ database, storage, queue }: HealthModuleDeps) {
  const health = createHealthService({
    database: { kind: database.kind, check: () => database.ping() },
    storage,
    queue: { check: () => queue.ping() },
  });
  return { health, routes: () => [healthRoutes(health)] };
}
