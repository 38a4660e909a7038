import { z } from 'zod';
import { defineJob } from '../../jobs/queue';
import type { ExportsService } from './exports.service';

/**
 * expire-exports, every 15 minutes: deletes the files of exports past their 7 days, and fails and
 * cleans up builds whose process stopped (no progress for EXPORT_STALLED_AFTER_MS). Reading an
 * export past its time also expires it on the spot, so this only reclaims the space.
 */
export function expireExportsJob(exports: Pick<ExportsService, 'cleanup'>) {
  return defineJob({
    name: 'expire-exports',
    payload: z.object({}).passthrough(),
    retry: { limit: 0, delaySeconds: 60 },
    cron: '*/15 * * * *',
    async handler(_data, { log }) {
      const { expired, abandoned } = await exports.cleanup(log);
      if (expired || abandoned) log.info({ expired, abandoned }, 'exports cleaned up');
    },
  });
}
