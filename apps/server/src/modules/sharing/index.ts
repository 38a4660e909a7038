// modules/sharing: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { ownershipRoutes } from './ownership.routes';
export { createOwnershipService, type OwnershipService } from './ownership.service';
export { createSharingRepository } from './sharing.repository';
export { sharingRoutes } from './sharing.routes';
export { createSharingService, type SharingService } from './sharing.service';
export { createSharingModule } from './sharing.module';
