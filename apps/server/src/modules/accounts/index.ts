// modules/accounts: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export {
  defaultQuotaBytes,
  exceedsQuota,
  type Quota,
  QuotaExceededError,
  quotaGB,
  quotaOf,
  requireWithinQuota,
} from './quota';
export {
  type AccountChanges,
  adjustStorageUse,
  createUsersRepository,
  type NewUserRow,
  type ProfessionalProfileRow,
  type UserRow,
  type UsersRepository,
} from './users.repository';
export { createAccountsModule } from './accounts.module';
