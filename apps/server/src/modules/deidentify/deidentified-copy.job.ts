import { defineJob } from '../../jobs/queue';
import { DEIDENTIFIED_COPY } from './deidentified-copy';
import type { DeidentifyService } from './deidentify.service';

/** deidentified-copy: a de-identified copy of one study, as a new study in its owner's list. */
export function deidentifiedCopyJob(service: Pick<DeidentifyService, 'makeCopy'>) {
  return defineJob({
    ...DEIDENTIFIED_COPY,
    retry: { limit: 3, delaySeconds: 30 },
    async handler(data) {
      await service.makeCopy(data);
    },
  });
}
