import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  analysisServices,
  instances,
  orderFulfilments,
  orders,
  providers,
  series,
  studies,
  users,
} from '../../db/schema/index';
import { adjustStorageUse } from '../accounts';
import { awaitsAutomatedPart } from '../orders';
import { refreshStudyTotals } from '../studies';

export type OrderRow = typeof orders.$inferSelect;
export type FulfilmentRow = typeof orderFulfilments.$inferSelect;
export type StudyRow = typeof studies.$inferSelect;

/** An order with what fulfilling it needs to know. */
export interface FulfilmentView {
  order: OrderRow;
  service: {
    id: string;
    name: string;
    type: 'AI' | 'Expert' | 'Combined';
    supportedModalities: string[];
    requiredData: string[];
  };
  provider: { id: string; name: string; linkedUserId: string | null };
  fulfilment: FulfilmentRow | null;
  study: {
    id: string;
    ownerId: string;
    studyDate: string | null;
    modalities: string[];
    seriesCount: number;
    instanceCount: number;
    bodyPart: string | null;
  } | null;
}

/** The report instance as it is indexed. */
export interface ReportInstance {
  seriesInstanceUid: string;
  sopInstanceUid: string;
  sopClassUid: string;
  transferSyntaxUid: string;
  seriesNumber: number;
  seriesDescription: string;
  sizeBytes: number;
  crc32: number;
  storageKey: string;
}

/** Orders as their fulfilment shows them: with service, provider, fulfilment and study. */
const views = (db: Db) =>
  db
    .select({
      order: orders,
      service: {
        id: analysisServices.id,
        name: analysisServices.name,
        type: analysisServices.type,
        supportedModalities: analysisServices.supportedModalities,
        requiredData: analysisServices.requiredData,
      },
      provider: { id: providers.id, name: providers.name, linkedUserId: providers.linkedUserId },
      fulfilment: orderFulfilments,
      study: {
        id: studies.id,
        ownerId: studies.ownerId,
        studyDate: studies.studyDate,
        modalities: studies.modalities,
        seriesCount: studies.seriesCount,
        instanceCount: studies.instanceCount,
        bodyPart: studies.bodyPart,
      },
    })
    .from(orders)
    .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
    .innerJoin(providers, eq(providers.id, orders.providerId))
    .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
    .leftJoin(studies, and(eq(studies.id, orders.studyId), isNull(studies.deletingSince)));

const toView = (r: {
  order: OrderRow;
  service: FulfilmentView['service'];
  provider: FulfilmentView['provider'];
  fulfilment: FulfilmentRow | null;
  study: FulfilmentView['study'] | { id: null };
}): FulfilmentView => ({
  ...r,
  fulfilment: r.fulfilment?.orderId ? r.fulfilment : null,
  study: r.study?.id ? (r.study as FulfilmentView['study']) : null,
});

/** Orders as the professional sees them, and the study a reading goes into. */
function createFulfilmentViewsRepository(db: Db) {
  return {
    async findView(orderId: string): Promise<FulfilmentView | undefined> {
      const [row] = await views(db).where(eq(orders.id, orderId)).limit(1);
      return row ? toView(row) : undefined;
    },

    /** Orders a professional's linked providers received once paid (never those waiting for payment). */
    async listForProfessional(userId: string): Promise<FulfilmentView[]> {
      const rows = await views(db)
        .where(
          and(
            eq(providers.linkedUserId, userId),
            inArray(orders.status, [
              'pending_approval',
              'pending_data_upload',
              'in_progress',
              'completed',
              'declined',
              'refunded',
            ]),
          ),
        )
        .orderBy(desc(orders.paidAt), desc(orders.createdAt), orders.id);
      return rows.map(toView);
    },

    async findStudy(studyId: string): Promise<StudyRow | undefined> {
      const [row] = await db.select().from(studies).where(eq(studies.id, studyId)).limit(1);
      return row;
    },

    /** The first series number after the study's own (report series go last in viewers). */
    async nextSeriesNumber(studyId: string): Promise<number> {
      const [row] = await db
        .select({ max: sql<number | null>`max(${series.seriesNumber})` })
        .from(series)
        .where(eq(series.studyId, studyId));
      return Math.max(Number(row?.max ?? 0), 999) + 1;
    },
  };
}

/** An order's steps by its professional: accepted, declined, drafted, pointed at another study. */
function createFulfilmentStepsRepository(db: Db) {
  return {
    /** pending_approval → in_progress by the professional the order's provider is linked to. */
    async accept(orderId: string, professionalId: string, at: Date): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(orders)
          .set({ status: 'in_progress', updatedAt: at })
          .where(
            and(
              eq(orders.id, orderId),
              eq(orders.status, 'pending_approval'),
              sql`exists (select 1 from ${providers} p where p.id = ${orders.providerId} and p.linked_user_id = ${professionalId})`,
            ),
          )
          .returning({ id: orders.id });
        if (!row) return false;
        await tx
          .insert(orderFulfilments)
          .values({ orderId, professionalId, acceptedAt: at, createdAt: at, updatedAt: at })
          .onConflictDoUpdate({
            target: orderFulfilments.orderId,
            set: { professionalId, acceptedAt: at, updatedAt: at },
          });
        return true;
      });
    },

    /** pending_approval → declined (the refund follows, OrdersService.refundOrder). */
    async decline(
      orderId: string,
      professionalId: string,
      reason: string | null,
      at: Date,
    ): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(orders)
          .set({ status: 'declined', updatedAt: at })
          .where(
            and(
              eq(orders.id, orderId),
              eq(orders.status, 'pending_approval'),
              sql`exists (select 1 from ${providers} p where p.id = ${orders.providerId} and p.linked_user_id = ${professionalId})`,
            ),
          )
          .returning({ id: orders.id });
        if (!row) return false;
        await tx
          .insert(orderFulfilments)
          .values({
            orderId,
            professionalId,
            declinedAt: at,
            declineReason: reason,
            createdAt: at,
            updatedAt: at,
          })
          .onConflictDoUpdate({
            target: orderFulfilments.orderId,
            set: { professionalId, declinedAt: at, declineReason: reason, updatedAt: at },
          });
        return true;
      });
    },

    async saveDraft(
      orderId: string,
      draft: { findings: string; impression: string; recommendation: string },
      at: Date,
    ): Promise<void> {
      await db
        .update(orderFulfilments)
        .set({ ...draft, updatedAt: at })
        .where(eq(orderFulfilments.orderId, orderId));
    },

    /** Points a pending_data_upload order at another study of its owner, and moves it on. */
    async attachStudy(
      orderId: string,
      userId: string,
      studyId: string,
      status: OrderRow['status'],
      at: Date,
    ): Promise<boolean> {
      const [row] = await db
        .update(orders)
        .set({ studyId, status, updatedAt: at })
        .where(
          and(eq(orders.id, orderId), eq(orders.userId, userId), eq(orders.status, 'pending_data_upload')),
        )
        .returning({ id: orders.id });
      return !!row;
    },
  };
}

/** A reading's delivery, in one transaction. */
function createDeliveryRepository(db: Db) {
  return {
    /**
     * Indexes the report instance as a new series of the order's study, charges its bytes to the
     * study's owner, and (`completeOrder`) completes the order, in one transaction. Touching the
     * study's row moves its owner's studies list on (the change-notification trigger), so Latest
     * Completion shows. False when the order is no longer in progress (delivered twice, refunded
     * meanwhile).
     *
     * Without `completeOrder` it adds the automated part of a Complete Analysis Package: the order
     * keeps its state (waiting for or in the professional's hands) and only records the part's
     * arrival, once per order; false when the order is no longer open or already has it.
     */
    async commitDelivery(p: {
      orderId: string;
      studyId: string;
      ownerId: string;
      instance: ReportInstance;
      report: { title: string; automated: boolean; pdfKey: string };
      completeOrder: boolean;
      at: Date;
    }): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [order] = await tx
          .select({ status: orders.status, automatedReportAt: orderFulfilments.automatedReportAt })
          .from(orders)
          .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
          .where(eq(orders.id, p.orderId))
          .for('update', { of: orders });
        if (
          p.completeOrder
            ? order?.status !== 'in_progress'
            : !order || !awaitsAutomatedPart({ serviceType: 'Combined', ...order })
        )
          return false;
        await tx.select({ id: users.id }).from(users).where(eq(users.id, p.ownerId)).for('update');
        const i = p.instance;
        const [seriesRow] = await tx
          .insert(series)
          .values({
            studyId: p.studyId,
            seriesInstanceUid: i.seriesInstanceUid,
            modality: 'DOC',
            seriesNumber: i.seriesNumber,
            seriesDescription: i.seriesDescription,
            instanceCount: 1,
            createdAt: p.at,
          })
          .returning({ id: series.id });
        await tx.insert(instances).values({
          studyId: p.studyId,
          seriesId: seriesRow!.id,
          sopInstanceUid: i.sopInstanceUid,
          sopClassUid: i.sopClassUid,
          instanceNumber: 1,
          transferSyntaxUid: i.transferSyntaxUid,
          sizeBytes: i.sizeBytes,
          crc32: i.crc32,
          storageKey: i.storageKey,
          storageOffset: 0,
          createdAt: p.at,
        });
        // The report is part of the study the owner keeps, so it counts like their own files;
        // it is delivered even past the quota (it was paid for).
        await adjustStorageUse(tx, p.ownerId, i.sizeBytes);
        await refreshStudyTotals(tx, [p.studyId], { updatedAt: p.at });
        if (!p.completeOrder) {
          const part = {
            automatedReportAt: p.at,
            automatedReportPdfKey: p.report.pdfKey,
            automatedReportSeriesUid: i.seriesInstanceUid,
            updatedAt: p.at,
          };
          await tx
            .insert(orderFulfilments)
            .values({ orderId: p.orderId, ...part, createdAt: p.at })
            .onConflictDoUpdate({ target: orderFulfilments.orderId, set: part });
          return true;
        }
        await tx.update(orders).set({ status: 'completed', updatedAt: p.at }).where(eq(orders.id, p.orderId));
        const report = {
          reportTitle: p.report.title,
          reportAutomated: p.report.automated,
          reportPdfKey: p.report.pdfKey,
          reportSeriesUid: i.seriesInstanceUid,
          reportSopUid: i.sopInstanceUid,
          completedAt: p.at,
          updatedAt: p.at,
        };
        await tx
          .insert(orderFulfilments)
          .values({ orderId: p.orderId, ...report, createdAt: p.at })
          .onConflictDoUpdate({ target: orderFulfilments.orderId, set: report });
        return true;
      });
    },
  };
}

/** Data access of order fulfilment: professionals' work lists, acceptance, delivered reports. */
export function createFulfilmentRepository(db: Db) {
  return {
    ...createFulfilmentViewsRepository(db),
    ...createFulfilmentStepsRepository(db),
    ...createDeliveryRepository(db),
  };
}
export type FulfilmentRepository = ReturnType<typeof createFulfilmentRepository>;
