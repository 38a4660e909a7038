import type { RequestMeta } from '../../http/request-meta';
import type { Principal } from '../access';
import { auditLink, gone, LINK_GONE, type LinksDeps, LOCATION_TTL_MS, principalOf } from './links-context';
import { LINK_TOKEN_PREFIX, random256, sha256Hex } from './links-crypto';

/**
 * What a recipient's link credential does after the link opened: acts as its principal (DICOMweb,
 * /fhir/R4, the viewer origin), opens the viewer, and downloads when the owner allowed it.
 */
export function createLinkCredentials(deps: LinksDeps) {
  const { repo } = deps;
  const liveCredential = (token: string) =>
    token.startsWith(LINK_TOKEN_PREFIX)
      ? repo.findLiveCredential({ tokenHash: sha256Hex(token) }, deps.now())
      : Promise.resolve(undefined);
  return {
    /** The bearer credential kind for DICOMweb and /fhir/R4 (modules/dicomweb `sessionPrincipal`). */
    credentials: {
      isToken: (token: string) => token.startsWith(LINK_TOKEN_PREFIX),
      async principalForToken(token: string): Promise<Principal | null> {
        if (!token.startsWith(LINK_TOKEN_PREFIX) || token.length > 100) return null;
        const found = await repo.findLiveCredential({ tokenHash: sha256Hex(token) }, deps.now());
        return found ? principalOf(found.link, found.credential) : null;
      },
    },

    /** A credential by id as its principal, while it and its link live (the viewer origin's link grants). */
    async principalForCredential(credentialId: string): Promise<Principal | null> {
      const found = await repo.findLiveCredential({ id: credentialId }, deps.now());
      return found ? principalOf(found.link, found.credential) : null;
    },

    /** 'Open images' on the link's page: the viewer origin's address with a grant read as the link. */
    async openViewer(token: string, studyId: string, meta: RequestMeta): Promise<{ viewerUrl: string }> {
      const found = await liveCredential(token);
      if (!found) throw gone();
      const principal = principalOf(found.link, found.credential);
      const study = await deps.access.requireStudyAccess(principal, 'read', { id: studyId }, meta, {
        auditAction: 'link.view',
        notFoundMessage: LINK_GONE,
      });
      const grant = await deps.viewerGrant(found.link.ownerId, study.id, {
        credentialId: found.credential.id,
        expiresAt: found.credential.expiresAt,
      });
      await auditLink(deps, 'link.view', 'success', found.link, [study.id], meta, null, {
        recipient: found.credential.recipient,
      });
      return {
        viewerUrl: `${deps.viewerPublicUrl}/viewer?StudyInstanceUIDs=${encodeURIComponent(study.studyInstanceUid)}#grant=${grant.token}`,
      };
    },

    /** 'Download' on the link's page, when the owner allowed it: a ticket URL that streams the ZIP. */
    async downloadTicket(token: string, studyId: string, meta: RequestMeta): Promise<{ url: string }> {
      const found = await liveCredential(token);
      if (!found) throw gone();
      const principal = principalOf(found.link, found.credential);
      const study = await deps.access.requireStudyAccess(principal, 'download', { id: studyId }, meta, {
        auditAction: 'link.download',
        notFoundMessage: 'Downloads are not allowed for this link, or it has ended.',
      });
      const ticket = random256();
      await repo.insertFile({
        linkId: found.link.id,
        credentialId: found.credential.id,
        tokenHash: sha256Hex(ticket),
        kind: 'download',
        body: study.id,
        expiresAt: new Date(Math.min(deps.now().getTime() + LOCATION_TTL_MS, found.link.expiresAt.getTime())),
      });
      return { url: `${deps.publicUrl}/api/shl/d/${ticket}` };
    },

    /** The principal and study of a download ticket (the route streams the study's ZIP as it). */
    async redeemDownload(ticket: string): Promise<{ principal: Principal; studyId: string }> {
      const found = /^[A-Za-z0-9_-]{43}$/.test(ticket)
        ? await repo.takeFile(sha256Hex(ticket), 'download', deps.now())
        : undefined;
      if (!found) throw gone();
      return { principal: principalOf(found.link, found.credential), studyId: found.file.body };
    },
  };
}
