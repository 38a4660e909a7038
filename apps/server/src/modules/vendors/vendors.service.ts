import { createVendorCredentials } from './vendor-credentials';
import { createVendorDispatch } from './vendor-dispatch';
import { createVendorReports } from './vendor-reports';
import { createVendorSettings } from './vendor-settings';
import { createVendorTools, type VendorsDeps } from './vendors-context';

export { PROVIDER_NOT_FOUND, VendorDispatchError, type VendorsDeps } from './vendors-context';

/**
 * External AI vendors (docs/decisions.md, "External AI vendors"). An admin gives a directory provider
 * a webhook URL and a generated signing secret; an automated order bought from it is then sent there
 * (the analysis job calls `dispatch`) with an expiring, study-scoped DICOMweb credential, and the
 * vendor posts its report back (`receiveReport`), signed with the same secret.
 */
export function createVendorsService(deps: VendorsDeps) {
  const tools = createVendorTools(deps);
  return {
    ...createVendorSettings(deps, tools),
    ...createVendorDispatch(deps, tools),
    ...createVendorCredentials(deps, tools),
    ...createVendorReports(deps, tools),
  };
}
export type VendorsService = ReturnType<typeof createVendorsService>;
