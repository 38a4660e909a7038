import { defineJob } from '../../jobs/queue';
import { DEIDENTIFIED_SEND } from './deidentified-copy';
import type { DeidentifyService } from './deidentify.service';

/** deidentified-send: the copies a de-identified share or link needs, then the share or link itself. */
export function deidentifiedSendJob(service: Pick<DeidentifyService, 'send'>) {
  return defineJob({
    ...DEIDENTIFIED_SEND,
    retry: { limit: 3, delaySeconds: 30 },
    async handler(data) {
      await service.send(data);
    },
  });
}
