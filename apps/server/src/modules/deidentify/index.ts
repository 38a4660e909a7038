// modules/deidentify: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { deidentifiedCopyJob } from './deidentified-copy.job';
export { DEIDENTIFIED_COPY } from './deidentified-copy';
export { deidentifiedDownload, deidentifyRoutes } from './deidentify.routes';
export { createDeidentifyService, type DeidentifyService } from './deidentify.service';
