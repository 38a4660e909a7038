import type { Logger } from 'pino';
import type { Config } from '../../config';
import type { JobQueue } from '../../jobs/queue';
import type { createOrderEvents } from '../orders';
import { createAnalysisRepository } from './analysis.repository';
import { createAnalysisService } from './analysis.service';
import { analysisSweepJob, RUN_ANALYSIS, runAnalysisJob } from './run-analysis.job';

type ServiceDeps = Parameters<typeof createAnalysisService>[0];

export interface AnalysisModuleDeps extends Pick<
  ServiceDeps,
  'storage' | 'notifications' | 'audit' | 'vendors' | 'now'
> {
  /** Report delivery (modules/fulfilment): automated reports are delivered through it. */
  reportDelivery: { deliverReport: ServiceDeps['deliverReport'] };
  db: Parameters<typeof createAnalysisRepository>[0];
  log: Logger;
  queue: Pick<JobQueue, 'send'>;
  config: Pick<Config, 'orderAcceptMs' | 'dicomMaxDecodedBytes'>;
  orders: { refundOrder: ServiceDeps['refundOrder'] };
  /** Order events (modules/orders): paid orders and attached studies start the automated part. */
  events: Pick<ReturnType<typeof createOrderEvents>, 'on'>;
}

/**
 * Automated analyses (AI Quick Analysis, the Complete Analysis Package's automated part) and
 * refunds of orders that cannot be served.
 */
export function createAnalysisModule(deps: AnalysisModuleDeps) {
  const { db, log, queue, config, orders, events } = deps;
  const analysis = createAnalysisService({
    repo: createAnalysisRepository(db),
    storage: deps.storage,
    notifications: deps.notifications,
    audit: deps.audit,
    log: log.child({ module: 'analysis' }),
    enqueue: async (data) => {
      await queue.send(RUN_ANALYSIS, data, { singletonKey: data.orderId });
    },
    deliverReport: deps.reportDelivery.deliverReport,
    refundOrder: (orderId, reason) => orders.refundOrder(orderId, reason),
    vendors: deps.vendors,
    approvalTimeoutMs: config.orderAcceptMs,
    maxDecodedBytes: config.dicomMaxDecodedBytes,
    now: deps.now,
  });
  /** Paid orders that nobody can deliver any more are refunded at once. */
  const refundUndeliverable = () => analysis.refundUndeliverable(log.child({ module: 'analysis' }));
  events.on('paid', ({ orderId }) => analysis.queueAutomatedPart(orderId));
  // A payment that completes after its professional stopped is refunded at once.
  events.on('paid', async () => {
    await refundUndeliverable();
  });
  events.on('studyAttached', ({ orderId }) => analysis.queueAutomatedPart(orderId));
  return { analysis, refundUndeliverable, jobs: [runAnalysisJob(analysis), analysisSweepJob(analysis)] };
}
