import { defineJob } from '../../jobs/queue';
import { BUILD_EXPORT, type ExportsService } from './exports.service';

/**
 * build-export: streams one export's ZIP into storage (exports.service.ts `build`). A failure is
 * recorded on the export and told to its owner, who may start again; a run cut off by a dying
 * process is handed to another worker by the queue and starts over.
 */
export function buildExportJob(exports: Pick<ExportsService, 'build'>) {
  return defineJob({
    ...BUILD_EXPORT,
    retry: { limit: 2, delaySeconds: 30 },
    async handler({ exportId }, { log }) {
      await exports.build(exportId, log);
    },
  });
}
