// modules/deidentify: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { deidentifiedCopyJob } from './deidentified-copy.job';
export { deidentifiedSendJob } from './deidentified-send.job';
export { type CopiesFollowUp, DEIDENTIFIED_COPY, DEIDENTIFIED_SEND } from './deidentified-copy';
export { deidentifiedDownload, deidentifyRoutes } from './deidentify.routes';
export { createDeidentifyService, type CopiesPrepared, type DeidentifyService } from './deidentify.service';
export { createDeidentifyModule } from './deidentify.module';
