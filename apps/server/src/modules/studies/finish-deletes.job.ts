import { z } from 'zod';
import { defineJob } from '../../jobs/queue';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { StudiesRepository } from './studies.repository';

/** A delete still unfinished this long after it started has lost its request (crash, restart). */
export const DELETE_STALLED_AFTER_MS = 10 * 60 * 1000;

/**
 * Removes a study for good: its objects first (in batches), then its rows and its bytes from the
 * owner's quota, then any archive it shared with studies already deleted. The study must already be marked as being deleted, so no reader sees it half-gone;
 * every step can be repeated, so a retry or the sweep finishes what an interrupted run started.
 */
export async function purgeStudy(
  repo: StudiesRepository,
  storage: ObjectStorage,
  study: { id: string; ownerId: string },
): Promise<void> {
  const { own, shared } = await repo.storageKeysOf(study.id);
  await storage.deleteMany(own);
  await repo.deleteStudy(study.id, study.ownerId);
  // An archive shared with other studies goes with the last of them. Checked after this study's rows
  // are gone, so of two such studies deleted at once the later one always sees the archive unused.
  if (shared.length > 0) await storage.deleteMany(await repo.unreferencedKeys(shared));
}

interface Deps {
  repo: StudiesRepository;
  storage: ObjectStorage;
  now: () => Date;
}

/** finish-deletes, every 15 minutes: completes study deletes whose request stopped half-way. */
export function finishDeletesJob(deps: Deps) {
  return defineJob({
    name: 'finish-deletes',
    payload: z.object({}).passthrough(),
    retry: { limit: 0, delaySeconds: 60 },
    cron: '*/15 * * * *',
    async handler(_data, { log }) {
      const stalled = await deps.repo.unfinishedDeletes(
        new Date(deps.now().getTime() - DELETE_STALLED_AFTER_MS),
      );
      let finished = 0;
      for (const study of stalled) {
        try {
          await purgeStudy(deps.repo, deps.storage, study);
          finished++;
        } catch (err) {
          // One study's storage trouble must not keep the others from being finished.
          log.error({ err, studyId: study.id }, 'could not finish a study delete');
        }
      }
      if (stalled.length > 0) log.info({ finished, stalled: stalled.length }, 'study deletes finished');
    },
  });
}
