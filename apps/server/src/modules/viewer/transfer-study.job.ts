import { z } from 'zod';
import { defineJob } from '../../jobs/queue';
import type { DicomStore } from '../../ports/dicom-store/dicom-store';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { DicomwebRepository } from '../dicomweb';
import { openInstance } from '../../dicom-archive/instance-location';
import type { DicomwebService } from '../dicomweb';
import type { ViewerRepository } from './viewer.repository';

export const transferStudyPayload = z.object({
  studyId: z.uuid(),
  /** The owner, so pending jobs can be listed per user. */
  userId: z.uuid(),
});

/** Rounds of preparation one job makes while uploads keep adding to the study. */
const MAX_ROUNDS = 5;

interface Deps {
  /** The study's preparation status. */
  viewer: ViewerRepository;
  store: DicomStore;
  storage: ObjectStorage;
  repo: DicomwebRepository;
  dicomweb: DicomwebService;
  retryLimit?: number;
}

/**
 * transfer-study: makes a study ready for the viewer. With the built-in store it computes each
 * series' metadata once (cached compressed), so the first display reads one small object per
 * series; with an external DICOMweb store it pushes there with STOW-RS the instances that store
 * does not hold yet, so a study that a later upload added to is completed, not sent again. It ends
 * with status.transfer completed, unless instances arrived meanwhile: then it goes round again.
 * Safe to repeat.
 */
export function transferStudyJob(deps: Deps) {
  const retryLimit = deps.retryLimit ?? 3;

  async function pushMissing(studyId: string, studyInstanceUid: string) {
    const rows = await deps.repo.instancesOfStudy(studyId);
    const held = deps.store.storedInstances
      ? await deps.store.storedInstances(studyInstanceUid)
      : new Set<string>();
    const missing = rows.filter((r) => !held.has(r.sopInstanceUid));
    await deps.store.storeStudy(
      studyInstanceUid,
      missing.map((r) => ({
        sopInstanceUid: r.sopInstanceUid,
        size: r.sizeBytes,
        open: () => openInstance(deps.storage, r),
      })),
    );
    return { instances: rows.length, pushed: missing.length };
  }

  return defineJob({
    name: 'transfer-study',
    payload: transferStudyPayload,
    retry: { limit: retryLimit, delaySeconds: 5 },
    async handler({ studyId }, { log }) {
      try {
        for (let round = 1; ; round++) {
          // Gone (deleted meanwhile): nothing to prepare.
          const study = await deps.repo.findStudy(studyId);
          if (!study) return;
          await deps.viewer.setTransferStatus(studyId, 'processing');
          let pushed = {};
          if (deps.store.kind === 'builtin') await deps.dicomweb.prepareStudy(studyId);
          else pushed = await pushMissing(studyId, study.studyInstanceUid);
          if (await deps.viewer.completeTransferIfUnchanged(studyId)) {
            log.info({ studyId, store: deps.store.kind, round, ...pushed }, 'study ready for viewing');
            return;
          }
          if (round >= MAX_ROUNDS) throw new Error('the study kept changing while it was being prepared');
          log.info({ studyId, round }, 'instances were added while the study was prepared; preparing again');
        }
      } catch (err) {
        // The queue retries; the study shows failed only if every attempt fails.
        await deps.viewer.setTransferStatus(studyId, 'failed');
        throw err;
      }
    },
  });
}
export type TransferStudyJob = ReturnType<typeof transferStudyJob>;
