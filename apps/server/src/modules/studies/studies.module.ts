import type { Logger } from 'pino';
import { createAuditBuffer } from './audit-buffer';
import { finishDeletesJob } from './finish-deletes.job';
import { PROCESS_STUDY } from './process-study';
import { createStudiesRepository } from './studies.repository';
import { studiesRoutes } from './studies.routes';
import { createStudiesService } from './studies.service';

type ServiceDeps = Parameters<typeof createStudiesService>[0];
type RouteOptions = NonNullable<Parameters<typeof studiesRoutes>[1]>;

export interface StudiesModuleDeps extends Pick<
  ServiceDeps,
  'access' | 'storage' | 'uploadArea' | 'queue' | 'audit' | 'changes' | 'invitations'
> {
  db: Parameters<typeof createStudiesRepository>[0];
  log: Logger;
  /** The audit repository, for the batched audit events of the hot list route. */
  auditRepo: Parameters<typeof createAuditBuffer>[0];
  /** `?deidentified=1` downloads (modules/deidentify). */
  deidentifiedDownload: NonNullable<RouteOptions['deidentifiedDownload']>;
  now: () => Date;
}

/** Studies and their uploads, My Studies' list, downloads and deletes. */
export function createStudiesModule(deps: StudiesModuleDeps) {
  const { storage, now } = deps;
  const studiesRepo = createStudiesRepository(deps.db);
  const auditBuffer = createAuditBuffer(deps.auditRepo, deps.log);
  const studies = createStudiesService({
    repo: studiesRepo,
    access: deps.access,
    storage,
    uploadArea: deps.uploadArea,
    queue: deps.queue,
    // Handled by modules/ingest/process-study.job.ts.
    job: PROCESS_STUDY,
    audit: deps.audit,
    auditBuffer,
    changes: deps.changes,
    invitations: deps.invitations,
  });
  return {
    studiesRepo,
    auditBuffer,
    studies,
    jobs: [finishDeletesJob({ repo: studiesRepo, storage, now })],
    routes: () => [studiesRoutes(studies, { deidentifiedDownload: deps.deidentifiedDownload })],
    close: () => auditBuffer.close(),
  };
}
