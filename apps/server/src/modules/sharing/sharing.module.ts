import type { Config } from '../../config';
import { defaultQuotaBytes } from '../accounts';
import { ownershipRoutes } from './ownership.routes';
import { createOwnershipService } from './ownership.service';
import { createSharingRepository } from './sharing.repository';
import { sharingRoutes } from './sharing.routes';
import { createSharingService } from './sharing.service';

type ServiceDeps = Parameters<typeof createSharingService>[0];

export interface SharingModuleDeps extends Omit<ServiceDeps, 'repo' | 'appUrl' | 'deidentified'> {
  /** De-identified copies to share instead of the study (modules/deidentify). */
  deidentify: ServiceDeps['deidentified'];
  db: Parameters<typeof createSharingRepository>[0];
  config: Pick<Config, 'publicUrl' | 'defaultMaxStorageGB'>;
}

/** Study shares and access receipts, and moving studies between owners. */
export function createSharingModule({ db, config, ...deps }: SharingModuleDeps) {
  const repo = createSharingRepository(db);
  const { access, users, notifications, mail, audit, throttle, changes, now } = deps;
  const appUrl = config.publicUrl;
  const sharing = createSharingService({
    repo,
    access,
    users,
    providers: deps.providers,
    notifications,
    mail,
    audit,
    throttle,
    secrets: deps.secrets,
    auditBuffer: deps.auditBuffer,
    changes,
    deidentified: deps.deidentify,
    appUrl,
    now,
  });
  const ownership = createOwnershipService({
    repo,
    access,
    users,
    notifications,
    mail,
    audit,
    throttle,
    changes,
    appUrl,
    defaultMaxStorageBytes: defaultQuotaBytes(config.defaultMaxStorageGB),
    now,
  });
  return { sharing, ownership, routes: () => [sharingRoutes(sharing), ownershipRoutes(ownership)] };
}
