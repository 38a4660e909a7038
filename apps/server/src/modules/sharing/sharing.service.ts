import type { ShareRow } from './sharing.repository';
import { createShareCreation } from './share-creation';
import { createShareManagement } from './share-management';
import { createShareClaim, createSharedWithMe } from './share-recipients';
import type { SharingDeps } from './sharing-context';

export {
  type ProviderDirectory,
  SHARE_RATE_MESSAGE,
  SHARES_PER_HOUR,
  type SharingDeps,
} from './sharing-context';

/**
 * Study shares: creating them (by email or provider), listing them for the owner, the recipient and
 * a provider, linking an emailed share to the account that signs up for it, revoking, the first-open
 * receipt, and the owner's access receipts. Who may open a study is decided by modules/access.
 */
export function createSharingService(deps: SharingDeps) {
  return {
    ...createShareCreation(deps),
    ...createShareManagement(deps),
    ...createSharedWithMe(deps),
    ...createShareClaim(deps),
  };
}
export type SharingService = ReturnType<typeof createSharingService>;
export type { ShareRow };
