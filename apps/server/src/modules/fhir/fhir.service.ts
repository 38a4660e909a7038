import type { CapabilityStatement } from '@medplum/fhirtypes';
import { capabilityStatement } from './fhir-resources';
import { createFhirBundles } from './fhir-bundles';
import { createFhirRead } from './fhir-reading';
import { createFhirSearch } from './fhir-searching';
import { createFhirSources, FHIR_TYPES, type FhirServiceDeps, SEARCH_PARAMS } from './fhir-sources';

export type { Principal } from '../access';
export {
  FHIR_ROOT,
  FHIR_TYPES,
  type ExportBundleOptions,
  type ExportedReport,
  type FhirServiceDeps,
  type FhirType,
  type StudyBundleOptions,
} from './fhir-sources';

/**
 * FHIR R4 over the studies a principal may read: Patient, ImagingStudy, DiagnosticReport,
 * DocumentReference and our DICOMweb Endpoint, read one by one, searched (the /fhir/R4 API,
 * fhir.routes.ts) or gathered in one Bundle for a study link (studyBundle). Every study goes
 * through modules/access; a stranger's or a malformed id is the one 404; every read is audited.
 */
export function createFhirService(deps: FhirServiceDeps) {
  const sources = createFhirSources(deps);
  const capabilities = capabilityStatement({
    base: sources.base,
    date: new Date().toISOString(),
    resources: FHIR_TYPES.map((type) => ({ type, search: SEARCH_PARAMS[type] })),
  });
  return {
    /** The base URL of the FHIR API, e.g. https://example.org/fhir/R4. */
    base: sources.base,

    /** GET /fhir/R4/metadata. */
    capabilityStatement(): CapabilityStatement {
      return capabilities;
    },

    ...createFhirBundles(deps, sources),
    ...createFhirRead(deps, sources),
    ...createFhirSearch(deps, sources),
  };
}
export type FhirService = ReturnType<typeof createFhirService>;
