import type { Config } from '../../config';
import { buildExportJob } from './build-export.job';
import { expireExportsJob } from './expire-exports.job';
import { createExportsRepository } from './exports.repository';
import { exportsRoutes } from './exports.routes';
import { createExportsService, type ExportsServiceDeps } from './exports.service';
import { createPs315Deidentifier } from './ps315-deidentifier';

export interface ExportsModuleDeps extends Pick<
  ExportsServiceDeps,
  'storage' | 'access' | 'audit' | 'queue' | 'now'
> {
  db: Parameters<typeof createExportsRepository>[0];
  config: Pick<Config, 'sessionSecret'>;
  notifications: { notify: ExportsServiceDeps['notify'] };
  /** An export's FHIR bundle (modules/fhir). */
  fhir: { exportBundle: ExportsServiceDeps['bundle'] };
}

/** 'Export my data': a patient's full export (DICOM media, reports, FHIR, history), kept 7 days. */
export function createExportsModule({ db, config, notifications, fhir, ...deps }: ExportsModuleDeps) {
  const dataExports = createExportsService({
    repo: createExportsRepository(db),
    storage: deps.storage,
    access: deps.access,
    audit: deps.audit,
    queue: deps.queue,
    notify: (userId, event) => notifications.notify(userId, event),
    bundle: (p, opts, meta) => fhir.exportBundle(p, opts, meta),
    // De-identified exports: the PS3.15 engine with the same secret-derived date shift as copies.
    deidentify: createPs315Deidentifier(config.sessionSecret),
    now: deps.now,
  });
  return {
    dataExports,
    jobs: [buildExportJob(dataExports), expireExportsJob(dataExports)],
    routes: () => [exportsRoutes(dataExports)],
  };
}
