import { z } from 'zod';
import { defineJob, type JobTarget } from '../../jobs/queue';
import { ANALYSIS_RETRY, type AnalysisService } from './analysis.service';

/** What queueing run-analysis needs (the analysis service's `enqueue`, wired in services.ts). */
export const RUN_ANALYSIS = {
  name: 'run-analysis',
  // userId names the job's owner (JobQueue.pendingFor).
  payload: z.object({ orderId: z.string().uuid(), userId: z.string().uuid() }),
} satisfies JobTarget;

/**
 * run-analysis: the automated part of one paid AI or Complete Analysis Package order: the built-in
 * technical report delivered into its study, or the order sent to its provider's external AI vendor.
 * Retried with backoff; the attempt after the last retry gives up (AnalysisService.runOrder).
 */
export function runAnalysisJob(analysis: Pick<AnalysisService, 'runOrder'>) {
  return defineJob({
    ...RUN_ANALYSIS,
    retry: ANALYSIS_RETRY,
    async handler(data, { log }) {
      await analysis.runOrder(data.orderId, log);
    },
  });
}

/**
 * analysis-sweep, every 2 minutes: refunds orders nobody can deliver any more (a missed prompt
 * refund, e.g. a process stopped in between) or no professional accepted in time, ends orders
 * whose external AI vendor never reported, and queues the automated part of paid orders whose job
 * was never sent (the process stopped in between).
 */
export function analysisSweepJob(
  analysis: Pick<
    AnalysisService,
    'expireUnaccepted' | 'expireVendorSilence' | 'queueMissed' | 'refundUndeliverable'
  >,
) {
  return defineJob({
    name: 'analysis-sweep',
    payload: z.object({}).passthrough(),
    retry: { limit: 0, delaySeconds: 60 },
    cron: '*/2 * * * *',
    async handler(_data, { log }) {
      const refunded = (await analysis.refundUndeliverable(log)) + (await analysis.expireUnaccepted(log));
      const silent = await analysis.expireVendorSilence(log);
      const queued = await analysis.queueMissed();
      if (refunded || silent || queued) log.info({ refunded, silent, queued }, 'analysis sweep');
    },
  });
}
