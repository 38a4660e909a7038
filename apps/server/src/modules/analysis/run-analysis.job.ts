import { z } from 'zod';
import { defineJob } from '../../jobs/queue';
import { ANALYSIS_RETRY, type AnalysisService } from './analysis.service';

/**
 * run-analysis: the automated technical report of one paid AI order, delivered into its study.
 * Retried with backoff; the attempt after the last retry refunds the order (AnalysisService.runOrder).
 * `analysis` is read when a job runs, so the job can be registered before the service exists.
 */
export function runAnalysisJob(analysis: () => Pick<AnalysisService, 'runOrder'>) {
  return defineJob({
    name: 'run-analysis',
    // userId names the job's owner (JobQueue.pendingFor).
    payload: z.object({ orderId: z.string().uuid(), userId: z.string().uuid() }),
    retry: ANALYSIS_RETRY,
    async handler(data, { log }) {
      await analysis().runOrder(data.orderId, log);
    },
  });
}

/**
 * analysis-sweep, every 2 minutes: refunds orders no professional accepted in time, and queues
 * the analysis of paid AI orders whose job was never sent (the process stopped in between).
 */
export function analysisSweepJob(analysis: () => Pick<AnalysisService, 'expireUnaccepted' | 'queueMissed'>) {
  return defineJob({
    name: 'analysis-sweep',
    payload: z.object({}).passthrough(),
    retry: { limit: 0, delaySeconds: 60 },
    cron: '*/2 * * * *',
    async handler(_data, { log }) {
      const refunded = await analysis().expireUnaccepted(log);
      const queued = await analysis().queueMissed();
      if (refunded || queued) log.info({ refunded, queued }, 'analysis sweep');
    },
  });
}
