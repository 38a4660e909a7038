import { AppError } from '../../http/app-error';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { AuditRecorder } from '../audit/audit.service';
import type { NotificationsService } from '../notifications/notifications.service';
import { crcOf } from '../studies/zip-reader';
import type { FulfilmentRepository } from './fulfilment.repository';
import { buildEncapsulatedPdf, ENCAPSULATED_PDF_SOP_CLASS } from './report-dicom';
import { renderReportPdf, type ReportContent } from './report-pdf';

export type { ReportContent } from './report-pdf';

/** Delivers a finished reading of an order into its study (see createReportDelivery). */
export type DeliverReport = (orderId: string, report: ReportContent) => Promise<void>;

export interface ReportDeliveryDeps {
  repo: FulfilmentRepository;
  storage: ObjectStorage;
  notifications: Pick<NotificationsService, 'notify'>;
  audit: AuditRecorder;
  now: () => Date;
}

/** Storage keys of a delivered report: its PDF and the DICOM instance that carries it. */
export const reportPdfKey = (orderId: string) => `reports/${orderId}/report.pdf`;
const reportDicomKey = (orderId: string, sopUid: string) => `reports/${orderId}/${sopUid}.dcm`;

/**
 * `deliverReport(orderId, report)`: renders the report as a PDF, stores it, adds it to the order's
 * study as a DICOM Encapsulated PDF instance in a series of its own (indexed and charged to the
 * study's owner like an uploaded file, so it shows in the viewer, the Info dialog and the download),
 * completes the order, tells the patient (no patient data in the notification) and audits it.
 * Only an order in progress can be delivered; a second delivery is a conflict and changes nothing.
 * `actorId` is the professional who delivered, or null for an automated reading.
 */
export function createReportDelivery(deps: ReportDeliveryDeps) {
  async function deliver(
    orderId: string,
    report: ReportContent,
    actorId: string | null = null,
  ): Promise<void> {
    const view = await deps.repo.findView(orderId);
    if (!view) throw new AppError('NOT_FOUND', 'Order not found.');
    if (view.order.status !== 'in_progress' || !view.order.studyId)
      throw new AppError('CONFLICT', 'Only an order in progress can be delivered.');
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
    const pdfKey = reportPdfKey(orderId);
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
        at,
      });
    } finally {
      // Nothing indexes the instance unless the delivery committed.
      if (!done) await deps.storage.delete(dicomKey).catch(() => undefined);
    }
    if (!done) throw new AppError('CONFLICT', 'Only an order in progress can be delivered.');
    await deps.audit({
      actorId,
      actorRole: actorId ? 'professional' : null,
      action: 'order.report_delivered',
      outcome: 'success',
      targetType: 'order',
      targetId: orderId,
      details: {
        studyId: study.id,
        automated: report.automated,
        seriesInstanceUid: dicom.seriesInstanceUid,
        sopInstanceUid: dicom.sopInstanceUid,
        pdfBytes: pdf.length,
        dicomBytes: dicom.bytes.length,
      },
    });
    await deps.notifications.notify(view.order.userId, {
      type: 'analysis',
      title: 'Analysis completed',
      description: `Your ${view.service.name} order is complete. The report has been added to your study.`,
      path: '/services/purchased',
    });
  }

  return {
    deliver,
    /** The function the analysis job and the professionals' workspace deliver through. */
    deliverReport: ((orderId, report) => deliver(orderId, report)) as DeliverReport,
  };
}
export type ReportDelivery = ReturnType<typeof createReportDelivery>;
