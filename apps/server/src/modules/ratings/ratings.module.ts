import { createRatingsRepository } from './ratings.repository';
import { ratingsRoutes } from './ratings.routes';
import { createRatingsService } from './ratings.service';

type ServiceDeps = Parameters<typeof createRatingsService>[0];

export interface RatingsModuleDeps extends Pick<ServiceDeps, 'audit' | 'requireRecentSignIn' | 'now'> {
  db: Parameters<typeof createRatingsRepository>[0];
  /** The provider directory (modules/providers): whether a user may see a provider. */
  providers: { findForUser(userId: string, providerId: string): Promise<unknown> };
}

/** Ratings of completed orders. */
export function createRatingsModule({ db, audit, providers, requireRecentSignIn, now }: RatingsModuleDeps) {
  const ratings = createRatingsService({
    repo: createRatingsRepository(db),
    audit,
    canSeeProvider: async (userId, providerId) => Boolean(await providers.findForUser(userId, providerId)),
    requireRecentSignIn,
    now,
  });
  return { ratings, routes: () => [ratingsRoutes(ratings)] };
}
