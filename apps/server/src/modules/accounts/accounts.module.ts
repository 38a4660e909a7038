import { type AccountChanges, createUsersRepository } from './users.repository';

export interface AccountsModuleDeps {
  db: Parameters<typeof createUsersRepository>[0];
  /** Account changes the session cache must hear of (modules/auth/session-cache.ts). */
  changes: AccountChanges;
}

/** User accounts: the users repository every module reads accounts through. */
export function createAccountsModule({ db, changes }: AccountsModuleDeps) {
  return { users: createUsersRepository(db, changes) };
}
