import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client';
import { studies } from '../../db/schema/index';
import { defineJob } from '../../jobs/queue';
import type { DicomStore } from '../../ports/dicom-store/dicom-store';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { DicomwebRepository } from '../dicomweb/dicomweb.repository';
import { openInstance } from '../studies/instance-location';
import type { DicomwebService } from '../dicomweb/dicomweb.service';

export const transferStudyPayload = z.object({
  studyId: z.uuid(),
  /** The owner, so pending jobs can be listed per user. */
  userId: z.uuid(),
});

export type TransferStatus = 'pending' | 'processing' | 'completed' | 'failed';

export async function setTransferStatus(db: Db, studyId: string, status: TransferStatus): Promise<void> {
  await db.update(studies).set({ transferStatus: status }).where(eq(studies.id, studyId));
}

interface Deps {
  db: Db;
  store: DicomStore;
  storage: ObjectStorage;
  repo: DicomwebRepository;
  dicomweb: DicomwebService;
  retryLimit?: number;
}

/**
 * transfer-study: makes a study ready for the viewer. With the built-in store it computes each
 * series' metadata once (cached compressed), so the first display reads one small object per
 * series; with an external DICOMweb store it pushes the study there with STOW-RS. Either way it
 * ends with status.transfer completed. Safe to repeat.
 */
export function transferStudyJob(deps: Deps) {
  const retryLimit = deps.retryLimit ?? 3;
  return defineJob({
    name: 'transfer-study',
    payload: transferStudyPayload,
    retry: { limit: retryLimit, delaySeconds: 5 },
    async handler({ studyId }, { log }) {
      const study = await deps.repo.findStudy(studyId);
      if (!study) return;
      await setTransferStatus(deps.db, studyId, 'processing');
      try {
        if (deps.store.kind === 'builtin') {
          await deps.dicomweb.prepareStudy(studyId);
        } else {
          const rows = await deps.repo.instancesOfStudy(studyId);
          await deps.store.storeStudy(
            study.studyInstanceUid,
            rows.map((r) => ({
              sopInstanceUid: r.sopInstanceUid,
              size: r.sizeBytes,
              open: () => openInstance(deps.storage, r),
            })),
          );
        }
        await setTransferStatus(deps.db, studyId, 'completed');
        log.info({ studyId, store: deps.store.kind }, 'study ready for viewing');
      } catch (err) {
        // The queue retries; the study shows failed only if every attempt fails.
        await setTransferStatus(deps.db, studyId, 'failed');
        throw err;
      }
    },
  });
}
export type TransferStudyJob = ReturnType<typeof transferStudyJob>;
