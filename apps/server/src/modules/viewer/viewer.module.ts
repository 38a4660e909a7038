import type { Config } from '../../config';
import { transferStudyJob } from './transfer-study.job';
import { createViewerGrants } from './viewer-grants';
import { createViewerGrantsRepository } from './viewer-grants.repository';
import { createViewerRepository } from './viewer.repository';
import { viewerRoutes } from './viewer.routes';
import { createViewerService } from './viewer.service';

type ServiceDeps = Parameters<typeof createViewerService>[0];
type JobDeps = Parameters<typeof transferStudyJob>[0];

export interface ViewerModuleDeps
  extends
    Pick<ServiceDeps, 'access' | 'queue' | 'audit' | 'onOpen'>,
    Pick<JobDeps, 'store' | 'storage' | 'dicomweb'> {
  db: Parameters<typeof createViewerRepository>[0];
  /** The DICOMweb repository: a study's instances, for its transfer. */
  dicomwebRepo: JobDeps['repo'];
  changes: Parameters<typeof createViewerGrants>[2];
  config: Pick<Config, 'viewerPublicUrl'>;
  now: () => Date;
}

/** Viewer credentials (each scoped to one study), opening a study and preparing it for the viewer. */
export function createViewerModule({ db, config, ...deps }: ViewerModuleDeps) {
  const repo = createViewerRepository(db);
  const viewerGrants = createViewerGrants(createViewerGrantsRepository(db), deps.now, deps.changes);
  const transferStudy = transferStudyJob({
    viewer: repo,
    store: deps.store,
    storage: deps.storage,
    repo: deps.dicomwebRepo,
    dicomweb: deps.dicomweb,
  });
  const viewer = createViewerService({
    repo,
    access: deps.access,
    grants: viewerGrants,
    queue: deps.queue,
    job: transferStudy,
    audit: deps.audit,
    viewerPublicUrl: config.viewerPublicUrl,
    onOpen: deps.onOpen,
  });
  return { viewerGrants, viewer, jobs: [transferStudy], routes: () => [viewerRoutes(viewer)] };
}
