// modules/ingest: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { ArchivePrescan } from './archive-prescan';
export { processStudyJob, type ProcessStudyJob } from './process-study.job';
export { instanceKey } from './storage-keys';
export { sweepUploadsJob } from './sweep-uploads.job';
export { createIngestModule, uploadZipLimits } from './ingest.module';
