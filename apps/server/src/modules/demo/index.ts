// modules/demo: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { DEMO_FULFIL, demoFulfilJob, ensureDemoData } from './demo.service';
export { createDemoModule } from './demo.module';
