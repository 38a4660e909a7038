import type { Principal } from '../access';
import type { RequestMeta } from '../../http/request-meta';
import { sha256Hex, VENDOR_TOKEN_PREFIX } from './vendor-crypto';

import { type VendorsDeps, type VendorTools } from './vendors-context';

/** The DICOMweb credentials of orders sent to vendors: what a vendor's token may read, and their end. */
export function createVendorCredentials(deps: VendorsDeps, tools: VendorTools) {
  return {
    isToken: (token: string) => token.startsWith(VENDOR_TOKEN_PREFIX),

    /**
     * The principal of a vendor's DICOMweb bearer token: live (known, not revoked, not expired), or
     * null (refused and audited). What it may read is the access rule's decision (modules/access).
     */
    async principalForToken(token: string, meta: RequestMeta): Promise<Principal | null> {
      const found =
        token.startsWith(VENDOR_TOKEN_PREFIX) && token.length <= 200
          ? await deps.repo.findCredential(sha256Hex(token))
          : undefined;
      const reason = !found
        ? 'unknown'
        : found.revokedAt
          ? 'ended'
          : found.expiresAt.getTime() <= deps.now().getTime()
            ? 'expired'
            : null;
      if (!found || reason) {
        await tools.audit(
          found ? { id: found.providerId, role: 'vendor' } : null,
          'vendor.credential',
          { type: 'order', id: found?.orderId ?? 'unknown' },
          meta,
          { reason },
          'denied',
        );
        return null;
      }
      return {
        userId: found.providerId,
        role: 'vendor',
        via: 'vendor',
        studyId: found.studyId,
        vendor: { credentialId: found.id, orderId: found.orderId },
      };
    },

    /** The order-events hub's `ended`: the order's credentials end with it. */
    async endOrder(orderId: string): Promise<void> {
      const ended = await deps.repo.revokeForOrder(orderId, deps.now());
      if (ended > 0)
        await tools.audit(null, 'vendor.credential_end', { type: 'order', id: orderId }, undefined, {
          credentials: ended,
        });
    },
  };
}
