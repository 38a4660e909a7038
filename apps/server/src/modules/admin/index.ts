// modules/admin: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createAdminRepository } from './admin.repository';
export { adminRoutes } from './admin.routes';
export { type AdminService, createAdminService } from './admin.service';
export { createProfessionalsService, type ProfessionalsService } from './professionals.service';
export {
  adminChanges,
  type AdminChanges,
  type AdminSession,
  createRecentSignInRule,
  type RecentAdmin,
  type RecentSignInRule,
} from './recent-sign-in';
export { createAdminModule } from './admin.module';
