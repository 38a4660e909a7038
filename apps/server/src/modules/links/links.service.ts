import { createLinkCreation } from './link-creation';
import { createLinkCredentials } from './link-credentials';
import { createLinkManagement } from './link-management';
import { createLinkOpening } from './link-opening';
import type { LinksDeps } from './links-context';

export { type BundleBuilder, type LinksDeps, type Manifest, statusOf, WrongPasscode } from './links-context';

/**
 * Study links (SMART Health Links): the owner makes, lists and ends them; anyone holding one opens
 * its studies through the IG's protocol (manifest, files) and the link's credential. Whether a
 * link opens a study is the access rule's decision (modules/access) on every request, so pausing,
 * revoking, expiry, deleting or transferring the study, or turning sharing off ends it at once in
 * every process. See docs/links.md.
 */
export function createLinksService(deps: LinksDeps) {
  return {
    ...createLinkCredentials(deps),
    ...createLinkCreation(deps),
    ...createLinkManagement(deps),
    ...createLinkOpening(deps),
  };
}
export type LinksService = ReturnType<typeof createLinksService>;
