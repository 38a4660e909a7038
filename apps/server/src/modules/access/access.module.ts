import { createAccessRepository } from './access.repository';
import { createAccessService } from './access.service';

type ServiceDeps = Parameters<typeof createAccessService>[0];

export interface AccessModuleDeps extends Pick<ServiceDeps, 'audit'> {
  db: Parameters<typeof createAccessRepository>[0];
}

/** Who may do what with a study: the one check every study-derived route goes through. */
export function createAccessModule({ db, audit }: AccessModuleDeps) {
  return { access: createAccessService({ repo: createAccessRepository(db), audit }) };
}
