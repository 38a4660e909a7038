import type { Logger } from 'pino';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AuditOutcome, AuditRecorder } from '../audit';
import type { DeliverReport } from '../fulfilment';
import type { NotificationsService } from '../notifications';
import { awaitsAutomatedPart } from '../orders';
import type { AnalysisOrder, AnalysisRepository } from './analysis.repository';

import { AnalysisImpossibleError, type AnalysisReport, buildStudyReport, errorText } from './study-report';

export { AnalysisImpossibleError, type AnalysisReport } from './study-report';

/** Retries of the analysis job (pg-boss, exponential backoff from `delaySeconds`). */
export const ANALYSIS_RETRY = { limit: 3, delaySeconds: 20 };
/**
 * How long an external AI vendor has to post its report once the order was sent to it (its DICOMweb
 * credential lasts as long); then the order is treated like a failed analysis.
 */
export const VENDOR_REPORT_TIMEOUT_MS = 24 * 3600 * 1000;

export interface AnalysisDeps {
  repo: AnalysisRepository;
  storage: ObjectStorage;
  notifications: Pick<NotificationsService, 'notify'>;
  audit: AuditRecorder;
  log: Logger;
  /** Queues the analysis job of an order (run-analysis.job.ts). */
  enqueue: (order: { orderId: string; userId: string }) => Promise<void>;
  deliverReport: DeliverReport;
  /** Refunds once however often it is asked; `refundedNow` is true only for the call that did it. */
  refundOrder: (orderId: string, reason: string) => Promise<{ refundedNow: boolean }>;
  /**
   * External AI vendors (modules/vendors): an order whose provider has a webhook is sent there
   * (`dispatch` throws to be retried) instead of getting the built-in report.
   */
  vendors?: {
    vendorFor(providerId: string): Promise<{ webhookUrl: string } | null>;
    dispatch(orderId: string, log: Logger): Promise<void>;
    endOrder(orderId: string): Promise<void>;
  };
  /** An order a professional has not accepted within this time is refunded. */
  approvalTimeoutMs: number;
  maxDecodedBytes: number;
  now: () => Date;
}

/** AI orders are completed by their report; a package's automated part leaves it to the professional. */
const deliveryMode = (o: Pick<AnalysisOrder, 'serviceType'>) =>
  o.serviceType === 'Combined' ? ('automated_part' as const) : ('complete' as const);

/** Audit records, refunds, and delivering or giving up an order's automated part. */
function createAnalysisTools(deps: AnalysisDeps) {
  const { repo } = deps;

  const audit = (
    action: string,
    orderId: string,
    details: Record<string, unknown>,
    outcome: AuditOutcome = 'success',
  ) =>
    deps.audit({
      actorId: null,
      actorRole: null,
      action,
      outcome,
      targetType: 'order',
      targetId: orderId,
      details,
    });

  const buildReport = (studyId: string) => buildStudyReport(deps, studyId);

  /**
   * Refunds an order that cannot be served and tells the patient (no study details in the message).
   * The sweep and a prompt refund can reach one order together: only the call that refunded it
   * records and tells it, and says so (true).
   */
  async function refund(order: AnalysisOrder, reason: string, title: string, description: string) {
    const { refundedNow } = await deps.refundOrder(order.id, reason);
    if (!refundedNow) return false;
    await audit('analysis.refund', order.id, { reason, serviceType: order.serviceType });
    await deps.notifications.notify(order.userId, {
      type: 'analysis',
      title,
      description,
      path: '/services/purchased',
    });
    return true;
  }

  /** Queues an order's automated part, once per order, if it waits for one. */
  async function queueAutomatedPart(orderId: string): Promise<void> {
    const order = await repo.findOrder(orderId);
    if (!order || !awaitsAutomatedPart(order)) return;
    if (!(await repo.markQueued(order.id, deps.now()))) return;
    await deps.enqueue({ orderId: order.id, userId: order.userId });
    await audit('analysis.queue', order.id, { serviceType: order.serviceType });
  }

  /** The built-in technical report, delivered into the order's study. */
  async function deliverBuiltIn(order: AnalysisOrder): Promise<AnalysisReport> {
    if (!order.studyId) throw new AnalysisImpossibleError('the study was deleted');
    const report = await buildReport(order.studyId);
    await deps.deliverReport(order.id, report, { mode: deliveryMode(order) });
    return report;
  }

  /**
   * An automated part that will not come (retries used up, impossible, or a vendor that never
   * reported). An AI order is refunded in full. A Complete Analysis Package is paid for the
   * professional's reading too, so it is not refunded: when its vendor failed, the built-in report
   * takes the vendor's place; otherwise the failure is recorded and the patient told.
   */
  async function giveUp(
    order: AnalysisOrder,
    message: string,
    log: Logger,
    fromVendor: boolean,
  ): Promise<'refunded' | 'delivered' | 'failed'> {
    await repo.finish(order.id, 'failed', message, deps.now());
    if (fromVendor) await deps.vendors?.endOrder(order.id);
    if (order.serviceType === 'Combined') {
      if (fromVendor) {
        try {
          const report = await deliverBuiltIn(order);
          await repo.finish(order.id, 'delivered', message, deps.now());
          await audit('analysis.vendor_fallback', order.id, {
            error: message,
            sections: report.sections.length,
          });
          return 'delivered';
        } catch (err) {
          log.warn(
            { orderId: order.id, error: errorText(err) },
            'built-in report after a vendor failure failed',
          );
        }
      }
      await audit('analysis.part_failed', order.id, { error: message }, 'failure');
      await deps.notifications.notify(order.userId, {
        type: 'analysis',
        title: 'Automated analysis unavailable',
        description: `The automated part of your ${order.serviceName} order could not be produced. The professional's reading goes on as ordered.`,
        path: '/services/purchased',
      });
      return 'failed';
    }
    log.warn({ orderId: order.id, error: message }, 'analysis failed for good; refunding');
    await refund(
      order,
      'analysis_failed',
      'Analysis could not be completed',
      `Your ${order.serviceName} order could not be completed automatically and has been refunded in full.`,
    );
    return 'refunded';
  }

  return { repo, audit, buildReport, refund, queueAutomatedPart, deliverBuiltIn, giveUp };
}
type AnalysisTools = ReturnType<typeof createAnalysisTools>;

/** An order's automated part: queued once paid, then run by the job (vendor or built-in report). */
function createAnalysisRuns(deps: AnalysisDeps, tools: AnalysisTools) {
  const { repo, audit, buildReport, queueAutomatedPart, deliverBuiltIn, giveUp } = tools;
  return {
    buildReport,

    /**
     * The order-events hub's `paid` and `studyAttached` (services.ts): queues the automated part
     * of AI and Complete Analysis Package orders whose study can be read, once per order.
     */
    queueAutomatedPart,

    /**
     * One attempt of an order's automated part (the job's handler): sent to the provider's external
     * AI vendor when it has one (its report comes back through modules/vendors), else the built-in
     * report. Throws to be retried; the attempt after the last retry, or an analysis that cannot
     * succeed, gives up instead (`giveUp`: refund, or for a package a fallback or a record).
     */
    async runOrder(
      orderId: string,
      log: Logger,
    ): Promise<'delivered' | 'sent' | 'skipped' | 'refunded' | 'failed'> {
      const order = await repo.findOrder(orderId);
      const run = order && (await repo.findRun(orderId));
      if (!order || !awaitsAutomatedPart(order) || run?.status === 'sent' || run?.status === 'delivered') {
        log.info({ orderId, status: order?.status }, 'analysis skipped: order no longer waiting for it');
        return 'skipped';
      }
      const attempt = await repo.beginAttempt(orderId, deps.now());
      let fromVendor = false;
      try {
        if (!order.studyId) throw new AnalysisImpossibleError('the study was deleted');
        fromVendor = Boolean(deps.vendors && (await deps.vendors.vendorFor(order.providerId)));
        if (fromVendor) {
          await deps.vendors!.dispatch(orderId, log);
          await repo.markSent(orderId, deps.now());
          await audit('analysis.vendor_sent', orderId, { attempt, providerId: order.providerId });
          return 'sent';
        }
        const report = await deliverBuiltIn(order);
        await repo.finish(orderId, 'delivered', null, deps.now());
        await audit('analysis.deliver', orderId, {
          attempt,
          mode: deliveryMode(order),
          sections: report.sections.length,
          keyImages: report.keyImages?.length ?? 0,
        });
        return 'delivered';
      } catch (err) {
        const message = errorText(err);
        const final = err instanceof AnalysisImpossibleError || attempt > ANALYSIS_RETRY.limit;
        await audit(
          'analysis.attempt',
          orderId,
          { attempt, error: message, final, vendor: fromVendor },
          'failure',
        );
        if (!final) {
          await repo.noteError(orderId, message, deps.now());
          throw err;
        }
        return giveUp(order, message, log, fromVendor);
      }
    },
  };
}

/** The periodic sweeps: orders never queued, vendors silent too long, orders nobody can deliver or accepted in time. */
function createAnalysisSweeps(deps: AnalysisDeps, tools: AnalysisTools) {
  const { repo, refund, giveUp } = tools;
  return {
    /** Paid orders whose automated part was never queued (the process stopped between payment and send). */
    async queueMissed(): Promise<number> {
      let queued = 0;
      for (const order of await repo.unqueued()) {
        if (!(await repo.markQueued(order.id, deps.now()))) continue;
        await deps.enqueue({ orderId: order.id, userId: order.userId });
        queued++;
      }
      return queued;
    },

    /**
     * Orders sent to an external AI vendor that has not reported within VENDOR_REPORT_TIMEOUT_MS:
     * treated like an analysis that failed for good (its credential has expired by then anyway).
     */
    async expireVendorSilence(log: Logger): Promise<number> {
      const cutoff = new Date(deps.now().getTime() - VENDOR_REPORT_TIMEOUT_MS);
      let ended = 0;
      for (const order of await repo.sentBefore(cutoff)) {
        try {
          if (awaitsAutomatedPart(order)) await giveUp(order, 'the vendor sent no report in time', log, true);
          else
            await repo.finish(order.id, 'failed', 'the order ended before the vendor reported', deps.now());
          ended++;
        } catch (err) {
          log.error({ orderId: order.id, err: errorText(err) }, 'could not end an order its vendor left');
        }
      }
      return ended;
    },

    /**
     * Refunds at once the paid orders that nobody can deliver any more (the professional paused,
     * was disabled or unlinked), and tells their patients. Run when that happens, when an order
     * is paid, and by the sweep.
     */
    async refundUndeliverable(log: Logger): Promise<number> {
      let refunded = 0;
      for (const order of await repo.undeliverable()) {
        try {
          if (
            await refund(
              order,
              'provider_unavailable',
              'Order refunded',
              `The provider of your ${order.serviceName} order can no longer take it, so it has been refunded in full.`,
            )
          )
            refunded++;
        } catch (err) {
          log.error({ orderId: order.id, err: errorText(err) }, 'could not refund an undeliverable order');
        }
      }
      return refunded;
    },

    /** Refunds orders no professional accepted within the configured time, and tells their patients. */
    async expireUnaccepted(log: Logger): Promise<number> {
      const cutoff = new Date(deps.now().getTime() - deps.approvalTimeoutMs);
      let refunded = 0;
      for (const order of await repo.awaitingApprovalSince(cutoff)) {
        try {
          if (
            await refund(
              order,
              'not_accepted_in_time',
              'Order refunded',
              `No professional accepted your ${order.serviceName} order in time, so it has been refunded in full.`,
            )
          )
            refunded++;
        } catch (err) {
          // One order's refund trouble must not keep the others waiting.
          log.error({ orderId: order.id, err: errorText(err) }, 'could not refund an unaccepted order');
        }
      }
      return refunded;
    },
  };
}

/**
 * Automated analyses: an honest technical summary of the study (technical-summary.ts) delivered
 * into the study like a professional's report (completing an AI order; a Complete Analysis
 * Package's automated part leaves the order to its professional), or the order sent to the
 * provider's external AI vendor (modules/vendors); and the refunds of orders that cannot be served
 * (an analysis failing after its retries, an order no professional accepted in time).
 */
export function createAnalysisService(deps: AnalysisDeps) {
  const tools = createAnalysisTools(deps);
  return {
    ...createAnalysisRuns(deps, tools),
    ...createAnalysisSweeps(deps, tools),
  };
}
export type AnalysisService = ReturnType<typeof createAnalysisService>;
