import { createHash } from 'node:crypto';
import type { Bundle, CapabilityStatement, Resource } from '@medplum/fhirtypes';
import { AppError } from '../../http/app-error';
import type { RequestMeta } from '../../http/request-meta';
import { ObjectNotFoundError, type ObjectStorage } from '../../ports/storage/storage';
import { type AccessService, auditActor, type Principal, type StudyRow } from '../access';
import type { AuditRecorder } from '../audit';
import { DICOMWEB_ROOT } from '../dicomweb';
import {
  capabilityStatement,
  collectionBundle,
  DCM_SYSTEM,
  DICOM_UID_SYSTEM,
  DICOMWEB_ENDPOINT_ID,
  diagnosticReportResource,
  archivedDocumentReferenceResource,
  DICOM_MEDIA_ENDPOINT_ID,
  dicomMediaEndpointResource,
  dicomwebEndpointResource,
  documentReferenceResource,
  imagingStudyResource,
  interactiveEndpointResource,
  patientResource,
  type ReportSource,
  searchsetBundle,
  type SearchParamInfo,
  type SeriesSource,
} from './fhir-resources';
import {
  allOf,
  dateMatches,
  dateRange,
  parseDateSearch,
  parseSearch,
  parseToken,
  referenceId,
  type ParsedSearch,
  type SearchQuery,
} from './fhir-search';
import type { DeliveredReportRow, FhirRepository } from './fhir.repository';

export type { Principal } from '../access';

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AUTOMATED_SUFFIX = '-automated';
/** PDFs read from storage at once while a bundle or a page of DocumentReferences is built. */
const PDF_CONCURRENCY = 4;
/** At most this many study ids are named in a search's audit record. */
const AUDITED_STUDY_IDS = 50;

const SEARCH_PARAMS: Record<FhirType, SearchParamInfo[]> = {
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
const SUPPORTED: Record<FhirType, ReadonlySet<string>> = {
  Patient: supportedOf('Patient'),
  ImagingStudy: supportedOf('ImagingStudy'),
  DiagnosticReport: supportedOf('DiagnosticReport'),
  DocumentReference: supportedOf('DocumentReference'),
  Endpoint: supportedOf('Endpoint'),
};

/** A delivered report with what its resources need. */
type Report = ReportSource & { pdfKey: string };

function reportsOf(row: DeliveredReportRow, ownerId: string): Report[] {
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
function orderOfReportId(id: string): string | null {
  const orderId = id.endsWith(AUTOMATED_SUFFIX) ? id.slice(0, -AUTOMATED_SUFFIX.length) : id;
  return UUID.test(orderId) ? orderId.toLowerCase() : null;
}

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** Runs `fn` over `items`, `limit` at a time, keeping their order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
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

/**
 * FHIR R4 over the studies a principal may read: Patient, ImagingStudy, DiagnosticReport,
 * DocumentReference and our DICOMweb Endpoint, read one by one, searched (the /fhir/R4 API,
 * fhir.routes.ts) or gathered in one Bundle for a study link (studyBundle). Every study goes
 * through modules/access; a stranger's or a malformed id is the one 404; every read is audited.
 */
export function createFhirService(deps: FhirServiceDeps) {
  const { repo } = deps;
  const base = `${deps.publicUrl}${FHIR_ROOT}`;
  const dicomwebAddress = `${deps.publicUrl}${DICOMWEB_ROOT}`;
  const capabilities = capabilityStatement({
    base,
    date: new Date().toISOString(),
    resources: FHIR_TYPES.map((type) => ({ type, search: SEARCH_PARAMS[type] })),
  });

  async function audit(
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

  const notFound = (type: string, id: string) =>
    new AppError('NOT_FOUND', `${type}/${id.slice(0, 64)} is not known to this server`);

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

  function page<T>(all: T[], parsed: ParsedSearch): T[] {
    return all.slice(parsed.offset, parsed.offset + parsed.count);
  }

  function links(type: FhirType, parsed: ParsedSearch, total: number) {
    const url = (offset: number) => {
      const q = new URLSearchParams(parsed.applied);
      q.set('_count', String(parsed.count));
      if (offset) q.set('_offset', String(offset));
      return `${base}/${type}?${q.toString()}`;
    };
    const nextOffset = parsed.offset + parsed.count;
    return {
      self: url(parsed.offset),
      next: parsed.count > 0 && nextOffset < total ? url(nextOffset) : undefined,
    };
  }

  const idMatches = (parsed: ParsedSearch, id: string) => allOf(parsed, '_id', (v) => v === id);
  const patientMatches = (parsed: ParsedSearch, ownerId: string) =>
    allOf(parsed, 'patient', (v) => referenceId(v, 'Patient') === ownerId) &&
    allOf(parsed, 'subject', (v) => referenceId(v, 'Patient') === ownerId);

  function studyMatches(parsed: ParsedSearch, s: StudyRow, now: number): boolean {
    const target = s.studyDate ? dateRange(s.studyDate) : null;
    return (
      idMatches(parsed, s.id) &&
      patientMatches(parsed, s.ownerId) &&
      allOf(parsed, 'identifier', (v) => {
        const t = parseToken(v);
        if (t.system !== undefined && t.system !== DICOM_UID_SYSTEM) return false;
        return t.code === `urn:oid:${s.studyInstanceUid}` || t.code === s.studyInstanceUid;
      }) &&
      allOf(parsed, 'modality', (v) => {
        const t = parseToken(v);
        if (t.system !== undefined && t.system !== DCM_SYSTEM) return false;
        return s.modalities.some((m) => m.toUpperCase() === t.code.toUpperCase());
      }) &&
      allOf(parsed, 'started', (v) => {
        const { prefix, range } = parseDateSearch(v);
        return !!target && dateMatches(prefix, range, target, now);
      })
    );
  }

  /** Validates every `started` value up front, so a bad date is a 400 even when nothing is visible. */
  function checkDates(parsed: ParsedSearch) {
    for (const alternatives of parsed.params.get('started') ?? []) alternatives.forEach(parseDateSearch);
  }

  async function searchStudies(p: Principal, parsed: ParsedSearch) {
    checkDates(parsed);
    const now = deps.now().getTime();
    return (await deps.access.visibleStudies(p)).filter((s) => studyMatches(parsed, s, now));
  }

  async function searchReports(
    p: Principal,
    parsed: ParsedSearch,
    type: 'DiagnosticReport' | 'DocumentReference',
  ) {
    const studies = (await deps.access.visibleStudies(p)).filter(
      (s) =>
        patientMatches(parsed, s.ownerId) &&
        allOf(parsed, 'study', (v) => referenceId(v, 'ImagingStudy') === s.id),
    );
    const reports = (await reportsOfStudies(studies)).filter(
      (r) =>
        idMatches(parsed, r.id) &&
        (type === 'DiagnosticReport' ||
          allOf(
            parsed,
            'related',
            (v) =>
              referenceId(v, 'DiagnosticReport') === r.id || referenceId(v, 'ImagingStudy') === r.studyId,
          )),
    );
    return reports;
  }

  return {
    /** The base URL of the FHIR API, e.g. https://example.org/fhir/R4. */
    base,

    /** GET /fhir/R4/metadata. */
    capabilityStatement(): CapabilityStatement {
      return capabilities;
    },

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
      for (const id of ids) studies.push(await requireStudy(p, id, meta, 'bundle', 'ImagingStudy'));
      const [patientList, imaging, reports] = await Promise.all([
        patients(studies.map((s) => s.ownerId)),
        imagingStudies(studies),
        reportsOfStudies(studies),
      ]);
      const docs = await documents(reports);
      const resources: Resource[] = [
        ...patientList,
        ...imaging,
        dicomwebEndpointResource({
          address: dicomwebAddress,
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
        await audit(p, meta, 'bundle', { type: 'study', id: s.id }, 'success', {
          studies: studies.length,
          reports: reports.filter((r) => r.studyId === s.id).length,
        });
      return collectionBundle(base, resources, deps.now());
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
      for (const id of ids) studies.push(await requireStudy(p, id, meta, 'bundle', 'ImagingStudy'));
      const [patientList, series, reports] = await Promise.all([
        patients(studies.map((s) => s.ownerId)),
        repo.seriesOf(studies.map((s) => s.id)),
        reportsOfStudies(studies),
      ]);
      const byStudy = new Map<string, SeriesSource[]>();
      for (const se of series) byStudy.set(se.studyId, [...(byStudy.get(se.studyId) ?? []), se]);
      const imaging = studies.map((s) =>
        imagingStudyResource(s, byStudy.get(s.id) ?? [], DICOM_MEDIA_ENDPOINT_ID),
      );
      const pdfs = await mapLimited(reports, PDF_CONCURRENCY, pdfOf);
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
        await audit(p, meta, 'export', { type: 'study', id: s.id }, 'success', {
          studies: studies.length,
          reports: exported.filter((r) => r.studyId === s.id).length,
        });
      const bundle = collectionBundle(
        base,
        [...patientList, ...imaging, dicomMediaEndpointResource(opts.mediaPath), ...reportResources],
        deps.now(),
      );
      return { bundle, reports: exported };
    },

    /** GET /fhir/R4/{type}/{id}: the resource, or the one 404 (audited as denied). */
    async read(p: Principal, type: FhirType, id: string, meta: RequestMeta): Promise<Resource> {
      const resource = `${type}/${id.slice(0, 64)}`;
      if (type === 'ImagingStudy') {
        const study = await requireStudy(p, id, meta, 'read', type);
        const [found] = await imagingStudies([study]);
        await audit(p, meta, 'read', { type: 'study', id: study.id }, 'success', { resource });
        return found!;
      }
      if (type === 'Endpoint') {
        if (id !== DICOMWEB_ENDPOINT_ID) {
          await audit(p, meta, 'read', { type: 'endpoint', id }, 'denied', { resource });
          throw notFound(type, id);
        }
        await audit(p, meta, 'read', { type: 'endpoint', id }, 'success', { resource });
        return dicomwebEndpoint();
      }
      if (type === 'Patient') {
        const visible = UUID.test(id) && (await visiblePatientIds(p)).includes(id.toLowerCase());
        const [found] = visible ? await patients([id.toLowerCase()]) : [];
        if (!found) {
          await audit(p, meta, 'read', { type: 'user', id }, 'denied', { resource });
          throw notFound(type, id);
        }
        await audit(p, meta, 'read', { type: 'user', id: found.id! }, 'success', { resource });
        return found;
      }
      // DiagnosticReport, DocumentReference: a report of an order, readable with the order's study.
      const orderId = orderOfReportId(id);
      const row = orderId ? await repo.reportsOfOrder(orderId) : undefined;
      if (!row) {
        await audit(p, meta, 'read', { type: 'order', id }, 'denied', { resource });
        throw notFound(type, id);
      }
      const study = await requireStudy(p, row.studyId, meta, 'read', type);
      const report = reportsOf(row, study.ownerId).find((r) => r.id === id.toLowerCase());
      const doc = report && type === 'DocumentReference' ? (await documents([report]))[0] : undefined;
      if (!report || (type === 'DocumentReference' && !doc)) {
        await audit(p, meta, 'read', { type: 'study', id: study.id }, 'denied', { resource });
        throw notFound(type, id);
      }
      await audit(p, meta, 'read', { type: 'study', id: study.id }, 'success', { resource });
      return doc ?? diagnosticReportResource(report);
    },

    /**
     * GET /fhir/R4/{type}?…: a `searchset` Bundle of what the principal may see and the query
     * matches (see fhir-search.ts), a page at a time (`_count`, `_offset`), with `total` and `self`.
     * `strict` (Prefer: handling=strict) makes an unknown parameter a 400 instead of ignored.
     */
    async search(
      p: Principal,
      type: FhirType,
      query: SearchQuery,
      meta: RequestMeta,
      opts: { strict?: boolean } = {},
    ): Promise<Bundle> {
      const parsed = parseSearch(query, SUPPORTED[type], opts.strict ?? false);
      let total: number;
      let resources: Resource[];
      let studyIds: string[];
      if (type === 'ImagingStudy') {
        const found = await searchStudies(p, parsed);
        total = found.length;
        const shown = page(found, parsed);
        resources = await imagingStudies(shown);
        studyIds = shown.map((s) => s.id);
      } else if (type === 'DiagnosticReport' || type === 'DocumentReference') {
        const found = await searchReports(p, parsed, type);
        total = found.length;
        const shown = page(found, parsed);
        resources =
          type === 'DiagnosticReport'
            ? shown.map((r) => diagnosticReportResource(r))
            : await documents(shown);
        studyIds = [...new Set(shown.map((r) => r.studyId))];
      } else if (type === 'Patient') {
        const found = (await visiblePatientIds(p)).filter((id) => idMatches(parsed, id));
        total = found.length;
        resources = await patients(page(found, parsed));
        studyIds = [];
      } else {
        const found = idMatches(parsed, DICOMWEB_ENDPOINT_ID) ? [dicomwebEndpoint()] : [];
        total = found.length;
        resources = page(found, parsed);
        studyIds = [];
      }
      await audit(
        p,
        meta,
        'search',
        { type: 'study', id: studyIds.length === 1 ? studyIds[0]! : p.studyId },
        'success',
        { resourceType: type, results: total, studyIds: studyIds.slice(0, AUDITED_STUDY_IDS) },
      );
      return searchsetBundle(base, resources, total, links(type, parsed, total), deps.now());
    },
  };
}
export type FhirService = ReturnType<typeof createFhirService>;
