import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instanceReadingOrder } from '../../db/reading-order';
import {
  analysisRuns,
  analysisServices,
  instances,
  orderFulfilments,
  orders,
  providerFulfillers,
  series,
  users,
} from '../../db/schema/index';

/** An order as the automated analysis sees it. */
export interface AnalysisOrder {
  id: string;
  userId: string;
  studyId: string | null;
  /** The provider the order was bought from (an external AI vendor when it has a webhook). */
  providerId: string;
  status: string;
  serviceType: 'AI' | 'Expert' | 'Combined';
  serviceName: string;
  /** When a Complete Analysis Package's automated part was added to its study (null until then). */
  automatedReportAt: Date | null;
}

export interface StoredInstance {
  seriesId: string;
  seriesNumber: number | null;
  seriesDescription: string | null;
  modality: string | null;
  transferSyntaxUid: string | null;
  storageKey: string;
  storageOffset: number;
  sizeBytes: number;
}

const orderColumns = {
  id: orders.id,
  userId: orders.userId,
  studyId: orders.studyId,
  providerId: orders.providerId,
  status: orders.status,
  serviceType: analysisServices.type,
  serviceName: analysisServices.name,
  automatedReportAt: orderFulfilments.automatedReportAt,
};

/**
 * Paid orders whose automated part is still to come: AI orders in progress, and Complete Analysis
 * Packages that are open (waiting for or in a professional's hands) without their automated part.
 */
const awaitingAutomatedPart = () =>
  or(
    and(eq(analysisServices.type, 'AI'), eq(orders.status, 'in_progress')),
    and(
      eq(analysisServices.type, 'Combined'),
      inArray(orders.status, ['pending_approval', 'in_progress']),
      isNull(orderFulfilments.automatedReportAt),
    ),
  );

/** One order's analysis run: its order and images, queued, attempted, sent, finished. */
function createAnalysisRunsRepository(db: Db) {
  return {
    async findOrder(orderId: string): Promise<AnalysisOrder | undefined> {
      const [row] = await db
        .select(orderColumns)
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
        .where(eq(orders.id, orderId))
        .limit(1);
      return row;
    },

    /** The study's instances in reading order (series by number, instances by number). */
    instancesOfStudy(studyId: string): Promise<StoredInstance[]> {
      return db
        .select({
          seriesId: instances.seriesId,
          seriesNumber: series.seriesNumber,
          seriesDescription: series.seriesDescription,
          modality: series.modality,
          transferSyntaxUid: instances.transferSyntaxUid,
          storageKey: instances.storageKey,
          storageOffset: instances.storageOffset,
          sizeBytes: instances.sizeBytes,
        })
        .from(instances)
        .innerJoin(series, eq(series.id, instances.seriesId))
        .where(eq(instances.studyId, studyId))
        .orderBy(...instanceReadingOrder());
    },

    /** Records that the order's analysis is queued; false when it already was (queued once per order). */
    async markQueued(orderId: string, at: Date): Promise<boolean> {
      const rows = await db
        .insert(analysisRuns)
        .values({ orderId, status: 'queued', createdAt: at, updatedAt: at })
        .onConflictDoNothing()
        .returning({ orderId: analysisRuns.orderId });
      return rows.length > 0;
    },

    /** Counts one more attempt and answers the count. */
    async beginAttempt(orderId: string, at: Date): Promise<number> {
      const [row] = await db
        .insert(analysisRuns)
        .values({ orderId, status: 'running', attempts: 1, createdAt: at, updatedAt: at })
        .onConflictDoUpdate({
          target: analysisRuns.orderId,
          set: { status: 'running', attempts: sql`${analysisRuns.attempts} + 1`, updatedAt: at },
        })
        .returning({ attempts: analysisRuns.attempts });
      return row!.attempts;
    },

    async finish(orderId: string, status: 'delivered' | 'failed', error: string | null, at: Date) {
      await db
        .update(analysisRuns)
        .set({ status, lastError: error, updatedAt: at })
        .where(eq(analysisRuns.orderId, orderId));
    },

    /**
     * The order was handed to its external AI vendor, whose report is now awaited. Only from
     * `running`: a vendor that answered before our webhook call returned may have reported already.
     */
    async markSent(orderId: string, at: Date) {
      await db
        .update(analysisRuns)
        .set({ status: 'sent', sentAt: at, lastError: null, updatedAt: at })
        .where(and(eq(analysisRuns.orderId, orderId), eq(analysisRuns.status, 'running')));
    },

    async noteError(orderId: string, error: string, at: Date) {
      await db
        .update(analysisRuns)
        .set({ lastError: error, updatedAt: at })
        .where(eq(analysisRuns.orderId, orderId));
    },

    async findRun(orderId: string) {
      const [row] = await db.select().from(analysisRuns).where(eq(analysisRuns.orderId, orderId)).limit(1);
      return row;
    },
  };
}

/** The orders the periodic sweeps pick up: sent long ago, never queued, undeliverable, awaiting approval. */
function createAnalysisSweepsRepository(db: Db) {
  return {
    /** Orders handed to a vendor before `sentBefore` whose report never came. */
    sentBefore(sentBefore: Date): Promise<AnalysisOrder[]> {
      return db
        .select(orderColumns)
        .from(analysisRuns)
        .innerJoin(orders, eq(orders.id, analysisRuns.orderId))
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
        .where(and(eq(analysisRuns.status, 'sent'), lt(analysisRuns.sentAt, sentBefore)))
        .limit(100);
    },

    /** Paid orders whose automated part was never queued (a lost send): the sweep queues them. */
    unqueued(): Promise<AnalysisOrder[]> {
      return db
        .select(orderColumns)
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
        .leftJoin(analysisRuns, eq(analysisRuns.orderId, orders.id))
        .where(and(isNull(analysisRuns.orderId), awaitingAutomatedPart()))
        .limit(100);
    },

    /** Orders still waiting for a professional's approval, paid before `paidBefore`. */
    /**
     * Paid orders read by people that nobody can deliver any more: waiting for acceptance while the
     * provider has no active, unpaused professional (provider_fulfillers), or accepted by a
     * professional whose account is no longer active.
     */
    undeliverable(): Promise<AnalysisOrder[]> {
      return db
        .select(orderColumns)
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .innerJoin(providerFulfillers, eq(providerFulfillers.providerId, orders.providerId))
        .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
        .where(
          and(
            inArray(analysisServices.type, ['Expert', 'Combined']),
            or(
              and(
                inArray(orders.status, ['pending_approval', 'pending_data_upload']),
                isNull(orderFulfilments.acceptedAt),
                eq(providerFulfillers.reads, false),
              ),
              and(
                eq(orders.status, 'in_progress'),
                sql`${orderFulfilments.acceptedAt} is not null`,
                sql`not exists (select 1 from ${users} u where u.id = ${orderFulfilments.professionalId} and u.account_status = 'active')`,
              ),
            ),
          ),
        )
        .limit(100);
    },

    awaitingApprovalSince(paidBefore: Date): Promise<AnalysisOrder[]> {
      return db
        .select(orderColumns)
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
        .where(
          and(
            eq(orders.status, 'pending_approval'),
            inArray(analysisServices.type, ['Expert', 'Combined']),
            lt(orders.paidAt, paidBefore),
          ),
        )
        .limit(100);
    },
  };
}

export function createAnalysisRepository(db: Db) {
  return {
    ...createAnalysisRunsRepository(db),
    ...createAnalysisSweepsRepository(db),
  };
}
export type AnalysisRepository = ReturnType<typeof createAnalysisRepository>;
