// modules/fhir: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createFhirRepository, type FhirRepository } from './fhir.repository';
export { fhirRoutes } from './fhir.routes';
export {
  createFhirService,
  FHIR_ROOT,
  FHIR_TYPES,
  type ExportBundleOptions,
  type ExportedReport,
  type FhirService,
  type FhirType,
  type StudyBundleOptions,
} from './fhir.service';
export { FHIR_JSON, SHL_ENDPOINT_TYPE_SYSTEM } from './fhir-resources';
export { createFhirModule } from './fhir.module';
