import type { Config } from '../../config';
import { createAdminRepository } from './admin.repository';
import { adminRoutes } from './admin.routes';
import { createAdminService } from './admin.service';
import { createProfessionalsService } from './professionals.service';

type ServiceDeps = Parameters<typeof createAdminService>[0];
type ProfessionalsDeps = Parameters<typeof createProfessionalsService>[0];

export interface AdminModuleDeps
  extends
    Omit<ServiceDeps, 'repo' | 'users' | 'dataDir' | 'defaultMaxStorageGB'>,
    Pick<ProfessionalsDeps, 'users' | 'mail'> {
  db: Parameters<typeof createAdminRepository>[0];
  config: Pick<Config, 'dataDir' | 'defaultMaxStorageGB' | 'publicUrl'>;
}

/** The admin area (accounts, the mail outbox, failed jobs) and professionals' approval. */
export function createAdminModule({ db, config, users, audit, now, ...deps }: AdminModuleDeps) {
  const admin = createAdminService({
    repo: createAdminRepository(db),
    requireRecentSignIn: deps.requireRecentSignIn,
    users,
    sessions: deps.sessions,
    mfa: deps.mfa,
    issueSession: deps.issueSession,
    throttle: deps.throttle,
    outbox: deps.outbox,
    queue: deps.queue,
    health: deps.health,
    audit,
    dataDir: config.dataDir,
    defaultMaxStorageGB: config.defaultMaxStorageGB,
    onFulfillerLost: deps.onFulfillerLost,
    now,
  });
  const professionals = createProfessionalsService({
    users,
    audit,
    mail: deps.mail,
    appUrl: config.publicUrl,
    now,
  });
  return {
    admin,
    professionals,
    routes: (app: Config) => [adminRoutes({ admin, professionals, secureCookies: app.secureCookies })],
  };
}
