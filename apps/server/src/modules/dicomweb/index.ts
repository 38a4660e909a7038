// modules/dicomweb: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createDicomwebRepository, type DicomwebRepository } from './dicomweb.repository';
export { dicomwebRoutes } from './dicomweb.routes';
export {
  createDicomwebService,
  DICOMWEB_ROOT,
  type DicomwebService,
  type Principal,
} from './dicomweb.service';
export { frameInfo, type ParsedInstance, parseInstance, readFrame } from './part10';
export { type BearerCredentials, sessionPrincipal } from './session-principal';
export { createDicomwebModule } from './dicomweb.module';
