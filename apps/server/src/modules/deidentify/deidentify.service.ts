import { createDeidentifiedCopies } from './copy-making';
import { createDeidentifyPreview } from './deidentify-preview';
import { createDeidentifyTools, type DeidentifyDeps } from './deidentify-context';

export type { CopiesPrepared } from './deidentify-context';

/**
 * De-identified copies of a patient's own studies (PS3.15 Annex E, src/dicom/deidentify): a preview
 * of one instance, a copy made by a job as a new study in the owner's list, and a ZIP download made
 * on the fly. Only the owner may use any of it; anyone else gets the same 404 as for a missing study.
 */
export function createDeidentifyService(deps: DeidentifyDeps) {
  const tools = createDeidentifyTools(deps);
  return {
    ...createDeidentifyPreview(deps, tools),
    ...createDeidentifiedCopies(deps, tools),
  };
}
export type DeidentifyService = ReturnType<typeof createDeidentifyService>;
