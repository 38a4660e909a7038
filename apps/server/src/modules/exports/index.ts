// modules/exports: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { buildExportJob } from './build-export.job';
export { type Deidentifier, type DeidentifyInput, type DeidentifyOutput } from './export-builder';
export { expireExportsJob } from './expire-exports.job';
export { createExportsRepository, type ExportsRepository } from './exports.repository';
export { exportsRoutes } from './exports.routes';
export { createExportsService, type ExportsService } from './exports.service';
export { createPs315Deidentifier } from './ps315-deidentifier';
export { createExportsModule } from './exports.module';
