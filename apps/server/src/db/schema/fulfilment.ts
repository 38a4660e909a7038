import { index, pgTable, text, timestamp, uuid, boolean } from 'drizzle-orm/pg-core';
import { orders } from './orders';
import { users } from './users';

/**
 * What happens to a paid order after payment: a professional's acceptance or decline, the report
 * being written, and the delivered report (its PDF object and the DICOM series it became). One row
 * per order, created on the first of these events; `completedAt` is the order's completion (the
 * studies list's Latest Completion).
 */
export const orderFulfilments = pgTable(
  'order_fulfilments',
  {
    orderId: uuid('order_id')
      .primaryKey()
      .references(() => orders.id, { onDelete: 'cascade' }),
    /** The professional who accepted (or declined) the order. */
    professionalId: uuid('professional_id').references(() => users.id, { onDelete: 'set null' }),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    declinedAt: timestamp('declined_at', { withTimezone: true }),
    declineReason: text('decline_reason'),
    /** The report being written (Expert Review), kept between visits. */
    findings: text('findings'),
    impression: text('impression'),
    recommendation: text('recommendation'),
    reportTitle: text('report_title'),
    reportAutomated: boolean('report_automated'),
    /** The rendered PDF in object storage. */
    reportPdfKey: text('report_pdf_key'),
    reportSeriesUid: text('report_series_uid'),
    reportSopUid: text('report_sop_uid'),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /**
     * The automated part of a Complete Analysis Package, added to the study without completing the
     * order (the professional's reading does): when it arrived, its PDF and its series.
     */
    automatedReportAt: timestamp('automated_report_at', { withTimezone: true }),
    automatedReportPdfKey: text('automated_report_pdf_key'),
    automatedReportSeriesUid: text('automated_report_series_uid'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('order_fulfilments_professional_idx').on(t.professionalId)],
);
