/**
 * What the link's page shows, read from the FHIR R4 Bundle a link carries: the patient, each
 * ImagingStudy with its DICOMweb Endpoint, and the reports (DiagnosticReport, and the PDF of each in
 * a DocumentReference). Every value is untrusted text: the page renders it as text only.
 */

type Json = Record<string, unknown>;

export interface ShlEndpoint {
  address: string;
  /** `Name: value` lines of Endpoint.header, as request headers. */
  headers: Record<string, string>;
}

export interface ShlReport {
  key: string;
  title: string;
  date: string | null;
  conclusion: string | null;
  /** The PDF, base64, when the report carries one. */
  pdfBase64: string | null;
}

export interface ShlStudy {
  /** Our study id (ImagingStudy.id): what /api/shl/viewer and /api/shl/download take. */
  id: string;
  /** Study Instance UID, from the `urn:oid:` identifier. */
  uid: string | null;
  description: string | null;
  started: string | null;
  modalities: string[];
  numberOfSeries: number | null;
  numberOfInstances: number | null;
  endpoint: ShlEndpoint | null;
  reports: ShlReport[];
}

export interface ShlContent {
  patient: { name: string | null; birthDate: string | null } | null;
  studies: ShlStudy[];
  /** Reports that name no study of the bundle. */
  otherReports: ShlReport[];
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const array = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function humanName(names: unknown): string | null {
  const name = array(names).find(isObject);
  if (!name) return null;
  if (text(name.text)) return text(name.text);
  const parts = [...array(name.prefix), ...array(name.given), name.family, ...array(name.suffix)]
    .map(text)
    .filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

function codes(v: unknown): string[] {
  // R4 ImagingStudy.modality is a list of Codings; a series' modality is one Coding.
  const list = Array.isArray(v) ? v : [v];
  return list.filter(isObject).flatMap((c) => (text(c.code) ? [c.code as string] : []));
}

function endpointOf(resource: Json): ShlEndpoint | null {
  const address = text(resource.address);
  if (!address) return null;
  const headers: Record<string, string> = {};
  for (const line of array(resource.header)) {
    if (typeof line !== 'string') continue;
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { address: address.replace(/\/+$/, ''), headers };
}

function isWado(resource: Json): boolean {
  const types = Array.isArray(resource.connectionType) ? resource.connectionType : [resource.connectionType];
  return types.filter(isObject).some((c) => c.code === 'dicom-wado-rs');
}

function pdfOf(attachments: unknown[]): string | null {
  const pdf = attachments.filter(isObject).find((a) => a.contentType === 'application/pdf' && text(a.data));
  return pdf ? (pdf.data as string) : null;
}

/** Reads a decrypted bundle; throws when it is not a FHIR Bundle. */
export function readShlBundle(bundle: unknown): ShlContent {
  if (!isObject(bundle) || bundle.resourceType !== 'Bundle') throw new Error('not a FHIR Bundle');
  const resources: Json[] = [];
  const byRef = new Map<string, Json>();
  for (const entry of array(bundle.entry).filter(isObject)) {
    const resource = entry.resource;
    if (!isObject(resource) || typeof resource.resourceType !== 'string') continue;
    resources.push(resource);
    if (typeof entry.fullUrl === 'string') byRef.set(entry.fullUrl, resource);
    if (typeof resource.id === 'string') byRef.set(`${resource.resourceType}/${resource.id}`, resource);
  }
  const resolve = (ref: unknown): Json | undefined => {
    if (!isObject(ref) || typeof ref.reference !== 'string') return undefined;
    const r = ref.reference;
    return byRef.get(r) ?? byRef.get(r.split('/').slice(-2).join('/'));
  };
  const ofType = (type: string) => resources.filter((r) => r.resourceType === type);

  const patientResource = ofType('Patient')[0];
  const patient = patientResource
    ? { name: humanName(patientResource.name), birthDate: text(patientResource.birthDate) }
    : null;

  const studyOf = new Map<Json, ShlStudy>();
  const studies: ShlStudy[] = ofType('ImagingStudy').map((r, index) => {
    const identifier = array(r.identifier)
      .filter(isObject)
      .map((i) => text(i.value))
      .find((v) => v?.startsWith('urn:oid:'));
    const endpoints = array(r.endpoint)
      .map(resolve)
      .filter((e): e is Json => Boolean(e));
    const wado = endpoints.find(isWado) ?? ofType('Endpoint').find(isWado);
    const seriesModalities = array(r.series)
      .filter(isObject)
      .flatMap((s) => codes(s.modality));
    const study: ShlStudy = {
      id: text(r.id) ?? `study-${index}`,
      uid: identifier ? identifier.slice('urn:oid:'.length) : null,
      description: text(r.description),
      started: text(r.started),
      modalities: [...new Set([...codes(r.modality), ...seriesModalities])],
      numberOfSeries: count(r.numberOfSeries),
      numberOfInstances: count(r.numberOfInstances),
      endpoint: wado ? endpointOf(wado) : null,
      reports: [],
    };
    studyOf.set(r, study);
    return study;
  });
  const otherReports: ShlReport[] = [];
  const place = (report: ShlReport, study: ShlStudy | undefined) => {
    // With one study, a report naming none is that study's.
    const target = study ?? (studies.length === 1 ? studies[0] : undefined);
    (target ? target.reports : otherReports).push(report);
  };
  const studyOfReport = (dr: Json): ShlStudy | undefined =>
    array(dr.imagingStudy)
      .map(resolve)
      .map((s) => (s ? studyOf.get(s) : undefined))
      .find(Boolean);

  const documents = ofType('DocumentReference');
  const usedDocuments = new Set<Json>();
  ofType('DiagnosticReport').forEach((dr, index) => {
    // The report's PDF: its own presentedForm, or a DocumentReference that points at it.
    const relatedTo = (d: Json) => array(isObject(d.context) ? d.context.related : undefined).map(resolve);
    const studiesOfReport = array(dr.imagingStudy).map(resolve);
    const document =
      documents.find((d) => !usedDocuments.has(d) && relatedTo(d).includes(dr)) ??
      // Else the first PDF filed under the same study and no report yet.
      documents.find(
        (d) =>
          !usedDocuments.has(d) &&
          !relatedTo(d).some((r) => r?.resourceType === 'DiagnosticReport') &&
          relatedTo(d).some((r) => r !== undefined && studiesOfReport.includes(r)),
      );
    if (document) usedDocuments.add(document);
    const content = document ? array(document.content).filter(isObject) : [];
    const code = isObject(dr.code) ? dr.code : {};
    place(
      {
        key: text(dr.id) ?? `report-${index}`,
        title: text(code.text) ?? text(document?.description) ?? 'Report',
        date: text(dr.issued) ?? text(dr.effectiveDateTime),
        conclusion: text(dr.conclusion),
        pdfBase64: pdfOf(array(dr.presentedForm)) ?? pdfOf(content.map((c) => c.attachment)),
      },
      studyOfReport(dr),
    );
  });
  documents
    .filter((d) => !usedDocuments.has(d))
    .forEach((d, index) => {
      const pdfBase64 = pdfOf(
        array(d.content)
          .filter(isObject)
          .map((c) => c.attachment),
      );
      if (!pdfBase64) return;
      const related = array(isObject(d.context) ? d.context.related : undefined).map(resolve);
      const study = related
        .map((r) =>
          r
            ? (studyOf.get(r) ?? (r.resourceType === 'DiagnosticReport' ? studyOfReport(r) : undefined))
            : undefined,
        )
        .find(Boolean);
      const attachment = array(d.content).filter(isObject)[0]?.attachment;
      place(
        {
          key: text(d.id) ?? `document-${index}`,
          title: text(d.description) ?? (isObject(attachment) ? text(attachment.title) : null) ?? 'Report',
          date: text(d.date),
          conclusion: null,
          pdfBase64,
        },
        study,
      );
    });
  return { patient, studies, otherReports };
}
