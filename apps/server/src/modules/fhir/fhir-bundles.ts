import { createHash } from 'node:crypto';
import type { Bundle, Resource } from '@medplum/fhirtypes';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import { type Principal, type StudyRow } from '../access';
import {
  collectionBundle,
  diagnosticReportResource,
  archivedDocumentReferenceResource,
  DICOM_MEDIA_ENDPOINT_ID,
  dicomMediaEndpointResource,
  dicomwebEndpointResource,
  imagingStudyResource,
  interactiveEndpointResource,
  type SeriesSource,
} from './fhir-resources';
import {
  auditFhir,
  type ExportBundleOptions,
  type ExportedReport,
  type FhirServiceDeps,
  type FhirSources,
  mapLimited,
  PDF_CONCURRENCY,
  type StudyBundleOptions,
} from './fhir-sources';

/** The Bundles that carry studies elsewhere: a study link's, and a patient's export's. */
export function createFhirBundles(deps: FhirServiceDeps, sources: FhirSources) {
  return {
    /**
     * The Bundle a study link carries: a `collection` of the studies' owner (Patient), an
     * ImagingStudy per study, the DICOMweb Endpoint (with `endpoint.header` and `expiresAt`), the
     * interactive Endpoint when `interactiveUrl` is given, and each delivered report as a
     * DiagnosticReport with its PDF inline in a DocumentReference. Every study must be readable by
     * `p` (else the one 404, audited as fhir.bundle); the read is audited once per study.
     */
    async studyBundle(p: Principal, opts: StudyBundleOptions, meta: RequestMeta): Promise<Bundle> {
      const ids = [...new Set(opts.studyIds)];
      if (!ids.length) throw new AppError('BAD_REQUEST', 'A bundle needs at least one study');
      const studies: StudyRow[] = [];
      for (const id of ids) studies.push(await sources.requireStudy(p, id, meta, 'bundle', 'ImagingStudy'));
      const [patientList, imaging, reports] = await Promise.all([
        sources.patients(studies.map((s) => s.ownerId)),
        sources.imagingStudies(studies),
        sources.reportsOfStudies(studies),
      ]);
      const docs = await sources.documents(reports);
      const resources: Resource[] = [
        ...patientList,
        ...imaging,
        dicomwebEndpointResource({
          address: sources.dicomwebAddress,
          header: opts.endpoint.header,
          expiresAt: opts.endpoint.expiresAt,
        }),
        ...(opts.interactiveUrl
          ? [
              interactiveEndpointResource({
                address: opts.interactiveUrl,
                expiresAt: opts.endpoint.expiresAt,
              }),
            ]
          : []),
        ...reports.map((r) => diagnosticReportResource(r)),
        ...docs,
      ];
      for (const s of studies)
        await auditFhir(deps, p, meta, 'bundle', { type: 'study', id: s.id }, 'success', {
          studies: studies.length,
          reports: reports.filter((r) => r.studyId === s.id).length,
        });
      return collectionBundle(sources.base, resources, deps.now());
    },

    /**
     * The Bundle of a patient's export (modules/exports): a `collection` of the owner (Patient), an
     * ImagingStudy per study whose Endpoint is the archive's DICOMDIR, and each delivered report as
     * a DiagnosticReport and a DocumentReference whose PDF is a file in the archive (`reportPath`),
     * with its size and SHA-1. Returns the reports too, so the caller writes each PDF where the
     * Bundle says. Every study goes through the access rule; audited once per study (fhir.export).
     */
    async exportBundle(
      p: Principal,
      opts: ExportBundleOptions,
      meta: RequestMeta,
    ): Promise<{ bundle: Bundle; reports: ExportedReport[] }> {
      const ids = [...new Set(opts.studyIds)];
      if (!ids.length) throw new AppError('BAD_REQUEST', 'A bundle needs at least one study');
      const studies: StudyRow[] = [];
      for (const id of ids) studies.push(await sources.requireStudy(p, id, meta, 'bundle', 'ImagingStudy'));
      const [patientList, series, reports] = await Promise.all([
        sources.patients(studies.map((s) => s.ownerId)),
        deps.repo.seriesOf(studies.map((s) => s.id)),
        sources.reportsOfStudies(studies),
      ]);
      const byStudy = new Map<string, SeriesSource[]>();
      for (const se of series) byStudy.set(se.studyId, [...(byStudy.get(se.studyId) ?? []), se]);
      const imaging = studies.map((s) =>
        imagingStudyResource(s, byStudy.get(s.id) ?? [], DICOM_MEDIA_ENDPOINT_ID),
      );
      const pdfs = await mapLimited(reports, PDF_CONCURRENCY, sources.pdfOf);
      const exported: ExportedReport[] = [];
      const reportResources: Resource[] = [];
      reports.forEach((r, i) => {
        const pdf = pdfs[i];
        // A report whose PDF is gone is left out: the archive could not hold what it points at.
        if (!pdf) return;
        const path = opts.reportPath(exported.length);
        const file = { url: path, size: pdf.length, sha1: createHash('sha1').update(pdf).digest('base64') };
        exported.push({
          id: r.id,
          studyId: r.studyId,
          title: r.title,
          issued: r.issued,
          pdfKey: r.pdfKey,
          path,
        });
        reportResources.push(
          {
            ...diagnosticReportResource(r),
            presentedForm: [{ contentType: 'application/pdf', url: path, size: pdf.length, title: r.title }],
          },
          archivedDocumentReferenceResource(r, file),
        );
      });
      for (const s of studies)
        await auditFhir(deps, p, meta, 'export', { type: 'study', id: s.id }, 'success', {
          studies: studies.length,
          reports: exported.filter((r) => r.studyId === s.id).length,
        });
      const bundle = collectionBundle(
        sources.base,
        [...patientList, ...imaging, dicomMediaEndpointResource(opts.mediaPath), ...reportResources],
        deps.now(),
      );
      return { bundle, reports: exported };
    },
  };
}
