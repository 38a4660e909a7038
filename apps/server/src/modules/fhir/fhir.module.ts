import type { Config } from '../../config';
import { createFhirRepository } from './fhir.repository';
import { fhirRoutes, type FhirRouteOptions } from './fhir.routes';
import { createFhirService, FHIR_ROOT, type FhirServiceDeps } from './fhir.service';

export interface FhirModuleDeps extends Pick<FhirServiceDeps, 'access' | 'storage' | 'audit' | 'now'> {
  db: Parameters<typeof createFhirRepository>[0];
  config: Pick<Config, 'publicUrl'>;
  /** The same callers as DICOMweb on the app's origin (modules/dicomweb's sessionPrincipal). */
  principal: FhirRouteOptions['principal'];
}

/** FHIR R4 resources of the studies a principal may read: the /fhir/R4 API and a study link's bundle. */
export function createFhirModule({ db, config, principal, ...deps }: FhirModuleDeps) {
  const fhir = createFhirService({
    repo: createFhirRepository(db),
    access: deps.access,
    storage: deps.storage,
    audit: deps.audit,
    publicUrl: config.publicUrl,
    now: deps.now,
  });
  // Read only; its resources point at DICOMweb.
  const mounts = () => [{ prefix: FHIR_ROOT, plugin: fhirRoutes({ fhir, principal }) }];
  return { fhir, mounts };
}
