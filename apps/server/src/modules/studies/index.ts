// modules/studies: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { type AuditBuffer, createAuditBuffer } from './audit-buffer';
export { finishDeletesJob } from './finish-deletes.job';
export { PROCESS_STUDY } from './process-study';
export {
  createStudiesRepository,
  type IndexedInstance,
  type NewNotification,
  refreshStudyTotals,
  type StudiesRepository,
  type UploadRow,
} from './studies.repository';
export { sendStudyZip, studiesRoutes } from './studies.routes';
export { createStudiesService, type StudiesService, toStudyListItemDto } from './studies.service';
export { createStudiesModule } from './studies.module';
