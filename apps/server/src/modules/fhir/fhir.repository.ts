import { and, asc, eq, inArray, isNotNull, or } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { orderFulfilments, orders, providers, series, users } from '../../db/schema/index';
import type { PatientSource, SeriesSource } from './fhir-resources';

/**
 * A report delivered into a study, as modules/fulfilment/report-delivery.ts records it on the
 * order's fulfilment row: the final report, and for a Complete Analysis Package its automated part.
 */
export interface DeliveredReportRow {
  orderId: string;
  studyId: string;
  providerName: string;
  reportTitle: string | null;
  impression: string | null;
  reportPdfKey: string | null;
  completedAt: Date | null;
  reportSeriesDescription: string | null;
  automatedReportPdfKey: string | null;
  automatedReportAt: Date | null;
  automatedSeriesDescription: string | null;
}

const reportSeries = alias(series, 'report_series');
const automatedSeries = alias(series, 'automated_series');

/**
 * What the FHIR resources are built from. Studies themselves come through modules/access (the one
 * rule of who sees which); this reads what hangs off a study the caller was allowed: its series,
 * its owner's own name and birth date, and its delivered reports.
 */
export function createFhirRepository(db: Db) {
  async function reportsWhere(where: ReturnType<typeof and>): Promise<DeliveredReportRow[]> {
    const rows = await db
      .select({
        orderId: orders.id,
        studyId: orders.studyId,
        providerName: providers.name,
        reportTitle: orderFulfilments.reportTitle,
        impression: orderFulfilments.impression,
        reportPdfKey: orderFulfilments.reportPdfKey,
        completedAt: orderFulfilments.completedAt,
        reportSeriesDescription: reportSeries.seriesDescription,
        automatedReportPdfKey: orderFulfilments.automatedReportPdfKey,
        automatedReportAt: orderFulfilments.automatedReportAt,
        automatedSeriesDescription: automatedSeries.seriesDescription,
      })
      .from(orders)
      .innerJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
      .innerJoin(providers, eq(providers.id, orders.providerId))
      .leftJoin(
        reportSeries,
        and(
          eq(reportSeries.studyId, orders.studyId),
          eq(reportSeries.seriesInstanceUid, orderFulfilments.reportSeriesUid),
        ),
      )
      .leftJoin(
        automatedSeries,
        and(
          eq(automatedSeries.studyId, orders.studyId),
          eq(automatedSeries.seriesInstanceUid, orderFulfilments.automatedReportSeriesUid),
        ),
      )
      .where(
        and(
          where,
          isNotNull(orders.studyId),
          or(isNotNull(orderFulfilments.reportPdfKey), isNotNull(orderFulfilments.automatedReportPdfKey)),
        ),
      )
      .orderBy(asc(orderFulfilments.createdAt), asc(orders.id));
    return rows.map((r) => ({ ...r, studyId: r.studyId! }));
  }

  return {
    async patients(ids: string[]): Promise<PatientSource[]> {
      if (!ids.length) return [];
      return db
        .select({ id: users.id, name: users.name, dateOfBirth: users.dateOfBirth })
        .from(users)
        .where(inArray(users.id, ids));
    },

    /** The series of these studies (the report series included: they are part of the study). */
    async seriesOf(studyIds: string[]): Promise<Array<SeriesSource & { studyId: string }>> {
      if (!studyIds.length) return [];
      return db
        .select({
          studyId: series.studyId,
          seriesInstanceUid: series.seriesInstanceUid,
          seriesNumber: series.seriesNumber,
          modality: series.modality,
          seriesDescription: series.seriesDescription,
          bodyPart: series.bodyPart,
          instanceCount: series.instanceCount,
        })
        .from(series)
        .where(inArray(series.studyId, studyIds))
        .orderBy(asc(series.seriesNumber), asc(series.createdAt));
    },

    /** Reports delivered into these studies, oldest order first. */
    reportsOf(studyIds: string[]): Promise<DeliveredReportRow[]> {
      if (!studyIds.length) return Promise.resolve([]);
      return reportsWhere(inArray(orders.studyId, studyIds));
    },

    /** The delivered report(s) of one order, if any. */
    async reportsOfOrder(orderId: string): Promise<DeliveredReportRow | undefined> {
      const [row] = await reportsWhere(eq(orders.id, orderId));
      return row;
    },
  };
}
export type FhirRepository = ReturnType<typeof createFhirRepository>;
