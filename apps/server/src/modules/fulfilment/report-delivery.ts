import { AppError } from '../../http/app-error';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AuditRecorder } from '../audit';
import type { NotificationsService } from '../notifications';
import type { OrderEventsEmitter } from '../orders';
import { crcOf } from '../../dicom-archive/zip-reader';
import type { FulfilmentRepository } from './fulfilment.repository';
import { buildEncapsulatedPdf, ENCAPSULATED_PDF_SOP_CLASS } from './report-dicom';
import { renderReportPdf, type ReportContent } from './report-pdf';

export type { ReportContent } from './report-pdf';

/** How a reading is delivered. */
export interface DeliveryOptions {
  /** Who delivered: the professional, an external AI vendor (its provider), or null for our own job. */
  actor?: { id: string; role: 'professional' | 'vendor' } | null;
  /**
   * 'complete' (default): the report finishes the order. 'automated_part': the automated part of a
   * Complete Analysis Package, added to the study while the order stays open for the professional,
   * whose delivery completes it; once per order.
   */
  mode?: 'complete' | 'automated_part';
}

/** Delivers a finished reading of an order into its study (see createReportDelivery). */
export type DeliverReport = (
  orderId: string,
  report: ReportContent,
  options?: DeliveryOptions,
) => Promise<void>;

export interface ReportDeliveryDeps {
  repo: FulfilmentRepository;
  storage: ObjectStorage;
  notifications: Pick<NotificationsService, 'notify'>;
  audit: AuditRecorder;
  /** The order-events hub: a completing delivery emits `ended` (vendor credentials end with it). */
  events?: OrderEventsEmitter;
  now: () => Date;
}

/** Storage keys of a delivered report: its PDF and the DICOM instance that carries it. */
export const reportPdfKey = (orderId: string) => `reports/${orderId}/report.pdf`;
/** The PDF of a Complete Analysis Package's automated part (the order's own report comes later). */
export const automatedPartPdfKey = (orderId: string) => `reports/${orderId}/automated.pdf`;
const reportDicomKey = (orderId: string, sopUid: string) => `reports/${orderId}/${sopUid}.dcm`;
const OPEN_STATUSES = ['pending_approval', 'in_progress'];

/** After a delivery committed: its audit record, the patient told, and a completed order ended. */
async function announceDelivery(
  deps: ReportDeliveryDeps,
  d: {
    orderId: string;
    userId: string;
    serviceName: string;
    studyId: string;
    report: ReportContent;
    completeOrder: boolean;
    actor: DeliveryOptions['actor'] | null;
    dicom: ReturnType<typeof buildEncapsulatedPdf>;
    pdfBytes: number;
  },
): Promise<void> {
  await deps.audit({
    actorId: d.actor?.id ?? null,
    actorRole: d.actor?.role ?? null,
    action: 'order.report_delivered',
    outcome: 'success',
    targetType: 'order',
    targetId: d.orderId,
    details: {
      studyId: d.studyId,
      automated: d.report.automated,
      mode: d.completeOrder ? 'complete' : 'automated_part',
      seriesInstanceUid: d.dicom.seriesInstanceUid,
      sopInstanceUid: d.dicom.sopInstanceUid,
      pdfBytes: d.pdfBytes,
      dicomBytes: d.dicom.bytes.length,
    },
  });
  if (!d.completeOrder) {
    // The professional opening the study sees the series; the patient is told it arrived.
    await deps.notifications.notify(d.userId, {
      type: 'analysis',
      title: 'Automated analysis ready',
      description: `The automated part of your ${d.serviceName} order is ready and has been added to your study. The professional's reading follows.`,
      path: '/services/purchased',
    });
    return;
  }
  await deps.notifications.notify(d.userId, {
    type: 'analysis',
    title: 'Analysis completed',
    description: `Your ${d.serviceName} order is complete. The report has been added to your study.`,
    path: '/services/purchased',
  });
  await deps.events?.emit('ended', { orderId: d.orderId, status: 'completed' });
}

/**
 * `deliverReport(orderId, report)`: renders the report as a PDF, stores it, adds it to the order's
 * study as a DICOM Encapsulated PDF instance in a series of its own (indexed and charged to the
 * study's owner like an uploaded file, so it shows in the viewer, the Info dialog and the download),
 * completes the order, tells the patient (no patient data in the notification) and audits it.
 * Only an order in progress can be delivered; a second delivery is a conflict and changes nothing.
 * The automated part of a Complete Analysis Package (`mode: 'automated_part'`) is delivered the same
 * way into the study but leaves the order open; it too is delivered once.
 */
export function createReportDelivery(deps: ReportDeliveryDeps) {
  async function deliver(
    orderId: string,
    report: ReportContent,
    options: DeliveryOptions = {},
  ): Promise<void> {
    const completeOrder = (options.mode ?? 'complete') === 'complete';
    const actor = options.actor ?? null;
    const refused = completeOrder
      ? 'Only an order in progress can be delivered.'
      : 'The automated part of this order was already delivered, or the order is closed.';
    const view = await deps.repo.findView(orderId);
    if (!view) throw new AppError('NOT_FOUND', 'Order not found.');
    const open = completeOrder
      ? view.order.status === 'in_progress'
      : OPEN_STATUSES.includes(view.order.status) && !view.fulfilment?.automatedReportAt;
    if (!open || !view.order.studyId) throw new AppError('CONFLICT', refused);
    const study = await deps.repo.findStudy(view.order.studyId);
    if (!study || study.deletingSince) throw new AppError('CONFLICT', 'The study of this order is gone.');
    const at = deps.now();
    const pdf = await renderReportPdf(report, {
      serviceName: view.service.name,
      providerName: view.provider.name,
      date: at,
    });
    const dicom = buildEncapsulatedPdf({
      study,
      pdf,
      title: report.title,
      seriesNumber: await deps.repo.nextSeriesNumber(study.id),
      at,
    });
    const pdfKey = completeOrder ? reportPdfKey(orderId) : automatedPartPdfKey(orderId);
    const dicomKey = reportDicomKey(orderId, dicom.sopInstanceUid);
    await deps.storage.put(pdfKey, pdf, { size: pdf.length, contentType: 'application/pdf' });
    await deps.storage.put(dicomKey, dicom.bytes, {
      size: dicom.bytes.length,
      contentType: 'application/dicom',
    });
    let done = false;
    try {
      done = await deps.repo.commitDelivery({
        orderId,
        studyId: study.id,
        ownerId: study.ownerId,
        instance: {
          seriesInstanceUid: dicom.seriesInstanceUid,
          sopInstanceUid: dicom.sopInstanceUid,
          sopClassUid: ENCAPSULATED_PDF_SOP_CLASS,
          transferSyntaxUid: '1.2.840.10008.1.2.1',
          seriesNumber: dicom.seriesNumber,
          seriesDescription: report.title.slice(0, 64),
          sizeBytes: dicom.bytes.length,
          crc32: crcOf(dicom.bytes),
          storageKey: dicomKey,
        },
        report: { title: report.title, automated: report.automated, pdfKey },
        completeOrder,
        at,
      });
    } finally {
      // Nothing indexes the instance unless the delivery committed.
      if (!done) await deps.storage.delete(dicomKey).catch(() => undefined);
    }
    if (!done) throw new AppError('CONFLICT', refused);
    await announceDelivery(deps, {
      orderId,
      userId: view.order.userId,
      serviceName: view.service.name,
      studyId: study.id,
      report,
      completeOrder,
      actor,
      dicom,
      pdfBytes: pdf.length,
    });
  }

  return {
    deliver,
    /** The function the analysis job, vendors and the professionals' workspace deliver through. */
    deliverReport: deliver as DeliverReport,
  };
}
export type ReportDelivery = ReturnType<typeof createReportDelivery>;
