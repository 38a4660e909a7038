// modules/help: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createHelpRepository } from './help.repository';
export { helpRoutes } from './help.routes';
export { createHelpService, type HelpService } from './help.service';
export { createHelpModule } from './help.module';
