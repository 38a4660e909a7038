import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instanceReadingOrder } from '../../db/reading-order';
import { analysisRuns, analysisServices, instances, orders, series } from '../../db/schema/index';

/** An order as the automated analysis sees it. */
export interface AnalysisOrder {
  id: string;
  userId: string;
  studyId: string | null;
  status: string;
  serviceType: 'AI' | 'Expert' | 'Combined';
  serviceName: string;
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
  status: orders.status,
  serviceType: analysisServices.type,
  serviceName: analysisServices.name,
};

export function createAnalysisRepository(db: Db) {
  return {
    async findOrder(orderId: string): Promise<AnalysisOrder | undefined> {
      const [row] = await db
        .select(orderColumns)
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
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

    /** Paid orders whose automated part was never queued (a lost send): the sweep queues them. */
    unqueued(): Promise<AnalysisOrder[]> {
      return db
        .select(orderColumns)
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .leftJoin(analysisRuns, eq(analysisRuns.orderId, orders.id))
        .where(
          and(
            isNull(analysisRuns.orderId),
            eq(analysisServices.type, 'AI'),
            eq(orders.status, 'in_progress'),
          ),
        )
        .limit(100);
    },

    /** Orders still waiting for a professional's approval, paid before `paidBefore`. */
    awaitingApprovalSince(paidBefore: Date): Promise<AnalysisOrder[]> {
      return db
        .select(orderColumns)
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
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
export type AnalysisRepository = ReturnType<typeof createAnalysisRepository>;
