import { createHelpRepository } from './help.repository';
import { helpRoutes } from './help.routes';
import { createHelpService, type HelpDeps } from './help.service';

export interface HelpModuleDeps extends Omit<HelpDeps, 'repo'> {
  db: Parameters<typeof createHelpRepository>[0];
}

/** The help centre (its starting articles are applied by seed.ts) and its authoring. */
export function createHelpModule({ db, storage, audit, requireRecentSignIn, now }: HelpModuleDeps) {
  const help = createHelpService({
    repo: createHelpRepository(db),
    storage,
    audit,
    requireRecentSignIn,
    now,
  });
  return { help, routes: () => [helpRoutes(help)] };
}
