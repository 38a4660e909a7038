import { professionalProfileRoutes } from './professional-profile.routes';
import { providersAdminRoutes } from './providers-admin.routes';
import { createProvidersRepository } from './providers.repository';
import { providersRoutes } from './providers.routes';
import { createProvidersService, type ProvidersDeps } from './providers.service';

export interface ProvidersModuleDeps extends Omit<ProvidersDeps, 'repo'> {
  db: Parameters<typeof createProvidersRepository>[0];
}

/**
 * The provider directory and each user's trusted network. A new installation holds only the
 * platform's own automated analysis (seed.ts); verified professionals publish their profiles.
 */
export function createProvidersModule({ db, ...deps }: ProvidersModuleDeps) {
  const providers = createProvidersService({
    repo: createProvidersRepository(db),
    users: deps.users,
    audit: deps.audit,
    throttle: deps.throttle,
    notifications: deps.notifications,
    requireRecentSignIn: deps.requireRecentSignIn,
    onFulfillerLost: deps.onFulfillerLost,
    now: deps.now,
  });
  return {
    providers,
    routes: () => [
      providersRoutes(providers),
      professionalProfileRoutes(providers),
      providersAdminRoutes(providers),
    ],
  };
}
