// modules/access: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createAccessRepository, type StudyRow } from './access.repository';
export { type AccessService, createAccessService, relationOf, type StudyAction } from './access.service';
export { auditActor, type Principal, sessionPrincipal } from './principal';
export { createAccessModule } from './access.module';
