import type { Bundle, Resource } from '@medplum/fhirtypes';
import type { RequestMeta } from '../../http/request-meta';
import { type Principal, type StudyRow } from '../access';
import {
  DCM_SYSTEM,
  DICOM_UID_SYSTEM,
  DICOMWEB_ENDPOINT_ID,
  diagnosticReportResource,
  searchsetBundle,
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
import {
  AUDITED_STUDY_IDS,
  auditFhir,
  type FhirServiceDeps,
  type FhirSources,
  type FhirType,
  SUPPORTED,
} from './fhir-sources';

function page<T>(all: T[], parsed: ParsedSearch): T[] {
  return all.slice(parsed.offset, parsed.offset + parsed.count);
}

function links(base: string, type: FhirType, parsed: ParsedSearch, total: number) {
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

async function searchStudies(deps: FhirServiceDeps, p: Principal, parsed: ParsedSearch) {
  checkDates(parsed);
  const now = deps.now().getTime();
  return (await deps.access.visibleStudies(p)).filter((s) => studyMatches(parsed, s, now));
}

async function searchReports(
  deps: FhirServiceDeps,
  sources: FhirSources,
  p: Principal,
  parsed: ParsedSearch,
  type: 'DiagnosticReport' | 'DocumentReference',
) {
  const studies = (await deps.access.visibleStudies(p)).filter(
    (s) =>
      patientMatches(parsed, s.ownerId) &&
      allOf(parsed, 'study', (v) => referenceId(v, 'ImagingStudy') === s.id),
  );
  const reports = (await sources.reportsOfStudies(studies)).filter(
    (r) =>
      idMatches(parsed, r.id) &&
      (type === 'DiagnosticReport' ||
        allOf(
          parsed,
          'related',
          (v) => referenceId(v, 'DiagnosticReport') === r.id || referenceId(v, 'ImagingStudy') === r.studyId,
        )),
  );
  return reports;
}

/** GET /fhir/R4/{type}?…: what the principal may see, filtered by the query, a page at a time. */
export function createFhirSearch(deps: FhirServiceDeps, sources: FhirSources) {
  return {
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
        const found = await searchStudies(deps, p, parsed);
        total = found.length;
        const shown = page(found, parsed);
        resources = await sources.imagingStudies(shown);
        studyIds = shown.map((s) => s.id);
      } else if (type === 'DiagnosticReport' || type === 'DocumentReference') {
        const found = await searchReports(deps, sources, p, parsed, type);
        total = found.length;
        const shown = page(found, parsed);
        resources =
          type === 'DiagnosticReport'
            ? shown.map((r) => diagnosticReportResource(r))
            : await sources.documents(shown);
        studyIds = [...new Set(shown.map((r) => r.studyId))];
      } else if (type === 'Patient') {
        const found = (await sources.visiblePatientIds(p)).filter((id) => idMatches(parsed, id));
        total = found.length;
        resources = await sources.patients(page(found, parsed));
        studyIds = [];
      } else {
        const found = idMatches(parsed, DICOMWEB_ENDPOINT_ID) ? [sources.dicomwebEndpoint()] : [];
        total = found.length;
        resources = page(found, parsed);
        studyIds = [];
      }
      await auditFhir(
        deps,
        p,
        meta,
        'search',
        { type: 'study', id: studyIds.length === 1 ? studyIds[0]! : p.studyId },
        'success',
        { resourceType: type, results: total, studyIds: studyIds.slice(0, AUDITED_STUDY_IDS) },
      );
      return searchsetBundle(
        sources.base,
        resources,
        total,
        links(sources.base, type, parsed, total),
        deps.now(),
      );
    },
  };
}
