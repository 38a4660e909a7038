// modules/viewer: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { transferStudyJob } from './transfer-study.job';
export { buildViewerApp } from './viewer-app';
export { createViewerGrantsRepository } from './viewer-grants.repository';
export { createViewerGrants, type ViewerGrants } from './viewer-grants';
export { createViewerRepository } from './viewer.repository';
export { viewerRoutes } from './viewer.routes';
export { createViewerService, type ViewerService } from './viewer.service';
export { createViewerModule } from './viewer.module';
