import type {
  Bundle,
  BundleEntry,
  BundleLink,
  CapabilityStatement,
  CapabilityStatementRestResource,
  Coding,
  DiagnosticReport,
  DocumentReference,
  Endpoint,
  ImagingStudy,
  ImagingStudySeries,
  OperationOutcome,
  OperationOutcomeIssue,
  Patient,
  Resource,
} from '@medplum/fhirtypes';

/**
 * FHIR R4 resources built from our rows: pure functions, no database and no access rule (the
 * service decides what a caller may see, fhir.service.ts). Types come from @medplum/fhirtypes and
 * are erased at build time.
 */

export const FHIR_VERSION = '4.0.1';
export const FHIR_JSON = 'application/fhir+json';

export const DICOM_UID_SYSTEM = 'urn:dicom:uid';
export const DCM_SYSTEM = 'http://dicom.nema.org/resources/ontology/DCM';
export const LOINC_SYSTEM = 'http://loinc.org';
export const ENDPOINT_CONNECTION_TYPE_SYSTEM =
  'http://terminology.hl7.org/CodeSystem/endpoint-connection-type';
export const ENDPOINT_PAYLOAD_TYPE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/endpoint-payload-type';
/**
 * The SMART Health Cards and Links IG 1.0.0 (STU1) names `shl-interactive-experience` in its
 * example code system (CodeSystem-example-shl-endpoint-type); receivers of that release look for
 * this system, so it is used as published. See docs/fhir.md.
 */
export const SHL_ENDPOINT_TYPE_SYSTEM =
  'http://hl7.org/fhir/uv/smart-health-cards-and-links/CodeSystem/example-shl-endpoint-type';
const DIAGNOSTIC_SERVICE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v2-0074';

/** LOINC 18748-4: the report of a diagnostic imaging study (DiagnosticReport.code, DocumentReference.type). */
export const IMAGING_REPORT_CODE: Coding = {
  system: LOINC_SYSTEM,
  code: '18748-4',
  display: 'Diagnostic imaging study',
};

/** The ids of the two Endpoints we describe: our DICOMweb and, in a link's bundle, the viewer page. */
export const DICOMWEB_ENDPOINT_ID = 'dicomweb';
export const INTERACTIVE_ENDPOINT_ID = 'viewer';

/** The study owner as they entered themselves (users.name, users.date_of_birth). */
export interface PatientSource {
  id: string;
  name: string | null;
  dateOfBirth: string | null;
}

/** The study-level facts an ImagingStudy carries (a row of `studies`). */
export interface StudySource {
  id: string;
  ownerId: string;
  studyInstanceUid: string;
  studyDate: string | null;
  studyDescription: string | null;
  modalities: string[];
  seriesCount: number;
  instanceCount: number;
}

export interface SeriesSource {
  seriesInstanceUid: string;
  seriesNumber: number | null;
  modality: string | null;
  seriesDescription: string | null;
  bodyPart: string | null;
  instanceCount: number;
}

/** A report delivered into a study (modules/fulfilment/report-delivery.ts). */
export interface ReportSource {
  /** The resource id: the order id, or `<order id>-automated` for a package's automated part. */
  id: string;
  studyId: string;
  /** The study owner (the Patient). */
  patientId: string;
  title: string;
  issued: Date;
  /** Who reported: the provider's name. */
  performer: string | null;
  conclusion: string | null;
}

/** Non-empty trimmed text, or undefined (FHIR strings may not be empty). */
function text(v: string | null | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

/** Drops undefined members, so a resource never carries `"x": undefined` into a validator or JSON. */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function patientResource(p: PatientSource): Patient {
  const name = text(p.name);
  return compact<Patient>({
    resourceType: 'Patient',
    id: p.id,
    name: name ? [{ text: name }] : undefined,
    birthDate: text(p.dateOfBirth),
  });
}

function modalityCoding(code: string | null | undefined): Coding {
  // A series without a Modality (0008,0060) is Other, as DICOM names it.
  return { system: DCM_SYSTEM, code: text(code) ?? 'OT' };
}

function seriesResource(se: SeriesSource): ImagingStudySeries {
  const bodyPart = text(se.bodyPart);
  return compact<ImagingStudySeries>({
    uid: se.seriesInstanceUid,
    // unsignedInt: DICOM's Series Number (IS) may be negative; such a number is left out.
    number: se.seriesNumber !== null && se.seriesNumber >= 0 ? se.seriesNumber : undefined,
    modality: modalityCoding(se.modality),
    description: text(se.seriesDescription),
    numberOfInstances: se.instanceCount,
    // Body Part Examined (0018,0015) is a DICOM defined term, not a SNOMED code: shown as written.
    bodySite: bodyPart ? { display: bodyPart } : undefined,
  });
}

/**
 * One ImagingStudy: its series with their instance counts, never the instances themselves (a
 * study of thousands of images stays a few kilobytes); the images are reached through `endpoint`.
 */
export function imagingStudyResource(
  s: StudySource,
  series: SeriesSource[],
  endpointId = DICOMWEB_ENDPOINT_ID,
): ImagingStudy {
  const modalities = s.modalities.map((m) => text(m)).filter((m): m is string => !!m);
  return compact<ImagingStudy>({
    resourceType: 'ImagingStudy',
    id: s.id,
    identifier: [{ system: DICOM_UID_SYSTEM, value: `urn:oid:${s.studyInstanceUid}` }],
    status: 'available',
    modality: modalities.length ? modalities.map(modalityCoding) : undefined,
    subject: { reference: `Patient/${s.ownerId}` },
    // Study Time (0008,0030) has no time zone and a FHIR dateTime with a time must have one, so
    // `started` carries the Study Date only.
    started: text(s.studyDate),
    endpoint: [{ reference: `Endpoint/${endpointId}` }],
    numberOfSeries: s.seriesCount,
    numberOfInstances: s.instanceCount,
    description: text(s.studyDescription),
    series: series.length
      ? [...series]
          .sort((a, b) => (a.seriesNumber ?? Infinity) - (b.seriesNumber ?? Infinity))
          .map(seriesResource)
      : undefined,
  });
}

/** Our DICOMweb (WADO-RS, QIDO-RS, WADO-URI) as an Endpoint; `header` carries a credential when given. */
export function dicomwebEndpointResource(opts: {
  address: string;
  header?: string[];
  expiresAt?: Date;
  id?: string;
}): Endpoint {
  return compact<Endpoint>({
    resourceType: 'Endpoint',
    id: opts.id ?? DICOMWEB_ENDPOINT_ID,
    status: 'active',
    connectionType: { system: ENDPOINT_CONNECTION_TYPE_SYSTEM, code: 'dicom-wado-rs' },
    name: 'DICOMweb (WADO-RS, QIDO-RS)',
    period: opts.expiresAt ? { end: opts.expiresAt.toISOString() } : undefined,
    payloadType: [{ text: 'DICOM WADO-RS' }],
    payloadMimeType: ['application/dicom'],
    address: opts.address,
    header: opts.header?.length ? [...opts.header] : undefined,
  });
}

/** The page a SMART Health Link's receiver opens to see the studies (the SHL interactive experience). */
export function interactiveEndpointResource(opts: { address: string; expiresAt?: Date }): Endpoint {
  return compact<Endpoint>({
    resourceType: 'Endpoint',
    id: INTERACTIVE_ENDPOINT_ID,
    status: 'active',
    connectionType: { system: SHL_ENDPOINT_TYPE_SYSTEM, code: 'shl-interactive-experience' },
    name: 'View the studies, their reports and images',
    period: opts.expiresAt ? { end: opts.expiresAt.toISOString() } : undefined,
    payloadType: [{ coding: [{ system: ENDPOINT_PAYLOAD_TYPE_SYSTEM, code: 'none' }] }],
    address: opts.address,
  });
}

/** A delivered report; its PDF is in the DocumentReference of the same id (documentReferenceResource). */
export function diagnosticReportResource(r: ReportSource, opts: { pdf?: Buffer } = {}): DiagnosticReport {
  return compact<DiagnosticReport>({
    resourceType: 'DiagnosticReport',
    id: r.id,
    status: 'final',
    category: [{ coding: [{ system: DIAGNOSTIC_SERVICE_SYSTEM, code: 'RAD', display: 'Radiology' }] }],
    code: { coding: [IMAGING_REPORT_CODE], text: text(r.title) },
    subject: { reference: `Patient/${r.patientId}` },
    issued: r.issued.toISOString(),
    performer: text(r.performer) ? [{ display: text(r.performer) }] : undefined,
    imagingStudy: [{ reference: `ImagingStudy/${r.studyId}` }],
    conclusion: text(r.conclusion),
    presentedForm: opts.pdf
      ? [{ contentType: 'application/pdf', data: opts.pdf.toString('base64'), title: text(r.title) }]
      : undefined,
  });
}

/** The PDF of a delivered report, inline. */
export function documentReferenceResource(r: ReportSource, pdf: Buffer): DocumentReference {
  return compact<DocumentReference>({
    resourceType: 'DocumentReference',
    id: r.id,
    status: 'current',
    docStatus: 'final',
    type: { coding: [IMAGING_REPORT_CODE] },
    subject: { reference: `Patient/${r.patientId}` },
    date: r.issued.toISOString(),
    description: text(r.title),
    content: [
      {
        attachment: compact({
          contentType: 'application/pdf',
          data: pdf.toString('base64'),
          size: pdf.length,
          title: text(r.title),
          creation: r.issued.toISOString(),
        }),
      },
    ],
    context: {
      related: [{ reference: `DiagnosticReport/${r.id}` }, { reference: `ImagingStudy/${r.studyId}` }],
    },
  });
}

/** The id of the Endpoint that stands for an export's DICOM media (its DICOMDIR), modules/exports. */
export const DICOM_MEDIA_ENDPOINT_ID = 'dicom-media';

/**
 * An export's DICOM files, reached through their DICOMDIR at `address`, a path inside the archive.
 * endpoint-connection-type names no DICOM media (PS3.10 files on a file-set); the binding is
 * extensible, so the DICOM code for media storage is used instead.
 */
export function dicomMediaEndpointResource(address: string): Endpoint {
  return {
    resourceType: 'Endpoint',
    id: DICOM_MEDIA_ENDPOINT_ID,
    status: 'active',
    connectionType: {
      system: DICOM_UID_SYSTEM,
      code: '1.2.840.10008.1.3.10',
      display: 'Media Storage Directory Storage',
    },
    name: 'DICOM media (DICOMDIR) inside this archive',
    payloadType: [{ text: 'DICOM PS3.10 files' }],
    payloadMimeType: ['application/dicom'],
    address,
  };
}

/** A report's PDF as a file inside an export archive: `url` is its path there, `sha1` base64. */
export function archivedDocumentReferenceResource(
  r: ReportSource,
  file: { url: string; size: number; sha1: string },
): DocumentReference {
  return compact<DocumentReference>({
    resourceType: 'DocumentReference',
    id: r.id,
    status: 'current',
    docStatus: 'final',
    type: { coding: [IMAGING_REPORT_CODE] },
    subject: { reference: `Patient/${r.patientId}` },
    date: r.issued.toISOString(),
    description: text(r.title),
    content: [
      {
        attachment: compact({
          contentType: 'application/pdf',
          url: file.url,
          size: file.size,
          hash: file.sha1,
          title: text(r.title),
          creation: r.issued.toISOString(),
        }),
      },
    ],
    context: {
      related: [{ reference: `DiagnosticReport/${r.id}` }, { reference: `ImagingStudy/${r.studyId}` }],
    },
  });
}

const fullUrl = (base: string, r: Resource) => `${base}/${r.resourceType}/${r.id}`;

/** A `collection` Bundle: what a study link carries. References inside are relative to `base`. */
export function collectionBundle(base: string, resources: Resource[], at: Date): Bundle {
  return {
    resourceType: 'Bundle',
    type: 'collection',
    timestamp: at.toISOString(),
    entry: resources.map((resource) => ({ fullUrl: fullUrl(base, resource), resource })),
  };
}

/** A search answer: `total` counts every match, `entry` holds this page. */
export function searchsetBundle(
  base: string,
  page: Resource[],
  total: number,
  links: { self: string; next?: string },
  at: Date,
): Bundle {
  const link: BundleLink[] = [{ relation: 'self', url: links.self }];
  if (links.next) link.push({ relation: 'next', url: links.next });
  return compact<Bundle>({
    resourceType: 'Bundle',
    type: 'searchset',
    timestamp: at.toISOString(),
    total,
    link,
    entry: page.length
      ? page.map((resource): BundleEntry => ({
          fullUrl: fullUrl(base, resource),
          resource,
          search: { mode: 'match' },
        }))
      : undefined,
  });
}

export function operationOutcome(
  code: OperationOutcomeIssue['code'],
  diagnostics: string,
  severity: OperationOutcomeIssue['severity'] = 'error',
): OperationOutcome {
  return { resourceType: 'OperationOutcome', issue: [{ severity, code, diagnostics }] };
}

/** A search parameter as the CapabilityStatement states it. */
export interface SearchParamInfo {
  name: string;
  type: 'token' | 'reference' | 'date' | 'string';
  documentation: string;
}

/** What /fhir/R4 serves (GET metadata). */
export function capabilityStatement(opts: {
  base: string;
  date: string;
  resources: Array<{ type: string; search: SearchParamInfo[] }>;
}): CapabilityStatement {
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: opts.date,
    kind: 'instance',
    name: 'MedicalImagingFhirR4',
    title: 'Medical Imaging FHIR R4 read API',
    software: { name: 'Medical Imaging' },
    implementation: {
      description: 'Read-only FHIR R4 view of the studies, reports and DICOMweb endpoint a caller may see',
      url: opts.base,
    },
    fhirVersion: FHIR_VERSION,
    format: [FHIR_JSON, 'json'],
    rest: [
      {
        mode: 'server',
        documentation: 'Read and search only; writes answer 405.',
        security: {
          cors: false,
          description:
            'Authorization: Bearer <session token> of a signed-in user (or the session cookie), or another bearer credential this server issued; each sees only the studies it may read.',
        },
        resource: opts.resources.map((r): CapabilityStatementRestResource => ({
          type: r.type as CapabilityStatementRestResource['type'],
          interaction: [{ code: 'read' }, { code: 'search-type' }],
          searchParam: r.search.map((p) => compact({ ...p })),
        })),
      },
    ],
  };
}
