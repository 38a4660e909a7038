import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import { ObjectNotFoundError, type ObjectStorage } from '../../ports/storage/storage';
import { type AccessService, auditActor, type Principal, type StudyRow } from '../access';
import type { AuditRecorder } from '../audit';
import { DICOMWEB_ROOT } from '../dicomweb';
import {
  DCM_SYSTEM,
  dicomwebEndpointResource,
  documentReferenceResource,
  imagingStudyResource,
  patientResource,
  type ReportSource,
  type SearchParamInfo,
  type SeriesSource,
} from './fhir-resources';
import type { DeliveredReportRow, FhirRepository } from './fhir.repository';

// What the parts of the FHIR service (fhir.service.ts) share: its types, the supported searches,
// and reading resources of the studies a principal may see.

/** Where the FHIR R4 read API is mounted (http/app.ts); resources' full URLs are built on it. */
export const FHIR_ROOT = '/fhir/R4';

/** The resource types /fhir/R4 serves. */
export const FHIR_TYPES = [
  'Patient',
  'ImagingStudy',
  'DiagnosticReport',
  'DocumentReference',
  'Endpoint',
] as const;
export type FhirType = (typeof FHIR_TYPES)[number];

export interface FhirServiceDeps {
  repo: FhirRepository;
  access: Pick<AccessService, 'requireStudyAccess' | 'visibleStudies'>;
  storage: Pick<ObjectStorage, 'get'>;
  audit: AuditRecorder;
  /** The app's public URL (config.publicUrl): the FHIR base and the DICOMweb address are built on it. */
  publicUrl: string;
  now: () => Date;
}

/** What a study link's bundle is built with (studyBundle). */
export interface StudyBundleOptions {
  studyIds: string[];
  /**
   * The DICOMweb Endpoint's `header` (e.g. `Authorization: Bearer <credential>`, a credential that
   * opens exactly these studies) and the end of its life (`period.end`).
   */
  endpoint: { header?: string[]; expiresAt?: Date };
  /** When set, an Endpoint of type shl-interactive-experience with this address (our viewer page). */
  interactiveUrl?: string;
}

/** What an export's Bundle points at inside its archive (modules/exports). */
export interface ExportBundleOptions {
  studyIds: string[];
  /** Path of the DICOMDIR inside the archive: the ImagingStudies' Endpoint. */
  mediaPath: string;
  /** Path inside the archive of the n-th report (0-based, in the Bundle's order). */
  reportPath: (index: number) => string;
}

/** A report an export carries: where its PDF is stored and where it goes in the archive. */
export interface ExportedReport {
  id: string;
  studyId: string;
  title: string;
  issued: Date;
  pdfKey: string;
  path: string;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const AUTOMATED_SUFFIX = '-automated';
/** PDFs read from storage at once while a bundle or a page of DocumentReferences is built. */
export const PDF_CONCURRENCY = 4;
/** At most this many study ids are named in a search's audit record. */
export const AUDITED_STUDY_IDS = 50;

export const SEARCH_PARAMS: Record<FhirType, SearchParamInfo[]> = {
  Patient: [{ name: '_id', type: 'token', documentation: 'The patient id (a user id)' }],
  ImagingStudy: [
    { name: '_id', type: 'token', documentation: 'The study id' },
    { name: 'patient', type: 'reference', documentation: 'Patient/<id>: the studies of this patient' },
    { name: 'subject', type: 'reference', documentation: 'Same as patient' },
    {
      name: 'identifier',
      type: 'token',
      documentation: 'The Study Instance UID: urn:dicom:uid|urn:oid:<uid> (a bare <uid> is accepted too)',
    },
    {
      name: 'started',
      type: 'date',
      documentation: 'The study date, with the FHIR prefixes eq, ne, gt, lt, ge, le, sa, eb, ap',
    },
    { name: 'modality', type: 'token', documentation: `A modality in the study: [${DCM_SYSTEM}|]<code>` },
  ],
  DiagnosticReport: [
    {
      name: '_id',
      type: 'token',
      documentation: 'The report id (an order id; -automated for an automated part)',
    },
    { name: 'patient', type: 'reference', documentation: 'Patient/<id>' },
    { name: 'subject', type: 'reference', documentation: 'Same as patient' },
    { name: 'study', type: 'reference', documentation: 'ImagingStudy/<id>: the reports of this study' },
  ],
  DocumentReference: [
    { name: '_id', type: 'token', documentation: 'The document id (the id of its DiagnosticReport)' },
    { name: 'patient', type: 'reference', documentation: 'Patient/<id>' },
    { name: 'subject', type: 'reference', documentation: 'Same as patient' },
    {
      name: 'related',
      type: 'reference',
      documentation: 'DiagnosticReport/<id> or ImagingStudy/<id> the document belongs to',
    },
  ],
  Endpoint: [{ name: '_id', type: 'token', documentation: 'dicomweb' }],
};
const supportedOf = (type: FhirType): ReadonlySet<string> => new Set(SEARCH_PARAMS[type].map((p) => p.name));
export const SUPPORTED: Record<FhirType, ReadonlySet<string>> = {
  Patient: supportedOf('Patient'),
  ImagingStudy: supportedOf('ImagingStudy'),
  DiagnosticReport: supportedOf('DiagnosticReport'),
  DocumentReference: supportedOf('DocumentReference'),
  Endpoint: supportedOf('Endpoint'),
};

/** A delivered report with what its resources need. */
export type Report = ReportSource & { pdfKey: string };

export function reportsOf(row: DeliveredReportRow, ownerId: string): Report[] {
  const out: Report[] = [];
  const base = { studyId: row.studyId, patientId: ownerId, performer: row.providerName };
  if (row.automatedReportPdfKey && row.automatedReportAt)
    out.push({
      ...base,
      id: `${row.orderId}${AUTOMATED_SUFFIX}`,
      title: row.automatedSeriesDescription ?? 'Automated analysis',
      issued: row.automatedReportAt,
      conclusion: null,
      pdfKey: row.automatedReportPdfKey,
    });
  if (row.reportPdfKey && row.completedAt)
    out.push({
      ...base,
      id: row.orderId,
      title: row.reportTitle ?? row.reportSeriesDescription ?? 'Report',
      issued: row.completedAt,
      conclusion: row.impression,
      pdfKey: row.reportPdfKey,
    });
  return out;
}

/** `<order id>` or `<order id>-automated`: the order, or null for anything else. */
export function orderOfReportId(id: string): string | null {
  const orderId = id.endsWith(AUTOMATED_SUFFIX) ? id.slice(0, -AUTOMATED_SUFFIX.length) : id;
  return UUID.test(orderId) ? orderId.toLowerCase() : null;
}

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** Runs `fn` over `items`, `limit` at a time, keeping their order. */
export async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export async function auditFhir(
  deps: FhirServiceDeps,
  p: Principal,
  meta: RequestMeta,
  action: 'read' | 'search' | 'bundle' | 'export',
  target: { type: string; id: string | null },
  outcome: 'success' | 'denied',
  details: Record<string, unknown>,
) {
  const actor = auditActor(p);
  await deps.audit({
    actorId: actor.actorId,
    actorRole: actor.actorRole,
    action: `fhir.${action}`,
    targetType: target.type,
    targetId: target.id?.slice(0, 64) ?? null,
    outcome,
    requestId: meta.requestId,
    ip: meta.ip,
    details: {
      via: p.via,
      ...(p.vendor ? { orderId: p.vendor.orderId } : {}),
      ...(actor.link ?? {}),
      ...details,
    },
  });
}

export const notFound = (type: string, id: string) =>
  new AppError('NOT_FOUND', `${type}/${id.slice(0, 64)} is not known to this server`);

/** Resources of studies, patients and reports, read through the access rule. */
export function createFhirSources(deps: FhirServiceDeps) {
  const { repo } = deps;
  const base = `${deps.publicUrl}${FHIR_ROOT}`;
  const dicomwebAddress = `${deps.publicUrl}${DICOMWEB_ROOT}`;
  /** The study, through the one access rule (a denial is audited there as fhir.<action>). */
  function requireStudy(
    p: Principal,
    id: string,
    meta: RequestMeta,
    action: 'read' | 'bundle',
    type: string,
  ) {
    return deps.access.requireStudyAccess(p, 'read', { id }, meta, {
      auditAction: `fhir.${action}`,
      notFoundMessage: notFound(type, id).message,
    });
  }

  async function imagingStudies(studies: StudyRow[]) {
    const series = await repo.seriesOf(studies.map((s) => s.id));
    const byStudy = new Map<string, SeriesSource[]>();
    for (const se of series) byStudy.set(se.studyId, [...(byStudy.get(se.studyId) ?? []), se]);
    return studies.map((s) => imagingStudyResource(s, byStudy.get(s.id) ?? []));
  }

  async function patients(ids: string[]) {
    return (await repo.patients([...new Set(ids)])).map(patientResource);
  }

  async function reportsOfStudies(studies: StudyRow[]): Promise<Report[]> {
    const owners = new Map(studies.map((s) => [s.id, s.ownerId]));
    return (await repo.reportsOf([...owners.keys()])).flatMap((r) => reportsOf(r, owners.get(r.studyId)!));
  }

  /** The PDF of a report; null when its object is gone (the report is then listed without it). */
  async function pdfOf(r: Report): Promise<Buffer | null> {
    try {
      return await readAll(await deps.storage.get(r.pdfKey));
    } catch (err) {
      if (err instanceof ObjectNotFoundError) return null;
      throw err;
    }
  }

  async function documents(reports: Report[]) {
    const pdfs = await mapLimited(reports, PDF_CONCURRENCY, pdfOf);
    return reports.flatMap((r, i) => (pdfs[i] ? [documentReferenceResource(r, pdfs[i])] : []));
  }

  function dicomwebEndpoint() {
    return dicomwebEndpointResource({ address: dicomwebAddress });
  }

  /** Whether the principal may see this patient: themselves, or the owner of a study they may read. */
  async function visiblePatientIds(p: Principal): Promise<string[]> {
    const owners = (await deps.access.visibleStudies(p)).map((s) => s.ownerId);
    // A link's principal carries its owner's id, and a vendor's its provider's: neither is "me".
    const self = p.via === 'session' && !p.link ? [p.userId] : [];
    return [...new Set([...self, ...owners])];
  }

  return {
    base,
    dicomwebAddress,
    requireStudy,
    imagingStudies,
    patients,
    reportsOfStudies,
    pdfOf,
    documents,
    dicomwebEndpoint,
    visiblePatientIds,
  };
}
export type FhirSources = ReturnType<typeof createFhirSources>;
