// modules/analysis: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createAnalysisRepository } from './analysis.repository';
export { type AnalysisService, createAnalysisService, VENDOR_REPORT_TIMEOUT_MS } from './analysis.service';
export { analysisSweepJob, RUN_ANALYSIS, runAnalysisJob } from './run-analysis.job';
export { createAnalysisModule } from './analysis.module';
