import type { Config } from '../../config';
import { usersRoutes } from './users.routes';
import { createUsersService } from './users.service';

type ServiceDeps = Parameters<typeof createUsersService>[0];

export interface UsersModuleDeps extends Pick<
  ServiceDeps,
  'users' | 'audit' | 'mail' | 'requireFreshProof' | 'now'
> {
  config: Pick<Config, 'publicUrl'>;
}

/** A user's own profile and preferences. */
export function createUsersModule({ config, users, audit, mail, requireFreshProof, now }: UsersModuleDeps) {
  const usersService = createUsersService({
    users,
    audit,
    mail,
    requireFreshProof,
    appUrl: config.publicUrl,
    now,
  });
  return { usersService, routes: (app: Config) => [usersRoutes({ users: usersService, config: app })] };
}
