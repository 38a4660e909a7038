import type { Config } from '../../config';
import { deidentifiedCopyJob } from './deidentified-copy.job';
import { deidentifiedSendJob } from './deidentified-send.job';
import { deidentifiedDownload, deidentifyRoutes } from './deidentify.routes';
import { createDeidentifyService } from './deidentify.service';

type ServiceDeps = Parameters<typeof createDeidentifyService>[0];

export interface DeidentifyModuleDeps extends Pick<
  ServiceDeps,
  'access' | 'studiesRepo' | 'storage' | 'queue' | 'audit'
> {
  config: Pick<Config, 'sessionSecret' | 'defaultMaxStorageGB'>;
  notifications: { notify: ServiceDeps['notify'] };
  /** Where a de-identified share or link goes once its copies exist (built after this module). */
  followUps: () => { sharing: CopySharing; links: CopyLinks };
}

interface CopySharing {
  shareCopy(ownerId: string, copyStudyId: string, recipient: Record<string, unknown>): Promise<unknown>;
}
interface CopyLinks {
  createForCopies(ownerId: string, copyStudyIds: string[], then: Record<string, unknown>): Promise<unknown>;
}

/** De-identified copies, previews and downloads of a patient's own studies (docs/deidentification.md). */
export function createDeidentifyModule({ config, notifications, followUps, ...deps }: DeidentifyModuleDeps) {
  const deidentify = createDeidentifyService({
    access: deps.access,
    studiesRepo: deps.studiesRepo,
    storage: deps.storage,
    queue: deps.queue,
    audit: deps.audit,
    secret: config.sessionSecret,
    defaultMaxStorageGB: config.defaultMaxStorageGB,
    notify: (userId, event) => notifications.notify(userId, event),
    sendCopies: async (userId, copyStudyIds, then) => {
      const { sharing, links } = followUps();
      if (then.kind === 'share') {
        const { recipient } = then as { recipient?: Record<string, unknown> };
        await sharing.shareCopy(userId, copyStudyIds[0]!, recipient ?? {});
      } else await links.createForCopies(userId, copyStudyIds, then);
    },
  });
  return {
    deidentify,
    /** The `?deidentified=1` download of a study (served by modules/studies' route). */
    download: deidentifiedDownload(deidentify),
    jobs: [deidentifiedCopyJob(deidentify), deidentifiedSendJob(deidentify)],
    routes: () => [deidentifyRoutes(deidentify)],
  };
}
