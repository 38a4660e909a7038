import type { AuthenticatedSession } from '../auth';

/**
 * Who is asking for a study: a signed-in user (any study they may see), a viewer grant (the one
 * study it was issued for, with its user's rights) or an external AI vendor's DICOMweb credential
 * (the one study of the one order it was issued for, read only, while that order awaits the vendor).
 * Every study-derived route turns its caller into one of these and hands it to `requireStudyAccess`
 * (access.service.ts).
 */
export interface Principal {
  /** The user; for a vendor credential, the provider (it is the actor of its audit records). */
  userId: string;
  role: string | null;
  via: 'session' | 'grant' | 'vendor' | 'link';
  /** Set for viewer grants and vendor credentials: the only study this credential opens. */
  studyId: string | null;
  /** Set for vendor credentials (modules/vendors): the credential and the order it serves. */
  vendor?: { credentialId: string; orderId: string };
  /**
   * Set for a study link's credential (modules/links): someone without an account who opened the
   * link, by the name they gave. `userId` is then the link's owner, who answers for it; what the
   * credential may read is the link's live studies only (access.repository.ts).
   */
  link?: { linkId: string; credentialId: string; recipient: string; allowDownload: boolean };
}

/** Who an audit record names for a principal: a link's recipient is not a user of ours. */
export function auditActor(p: Principal): {
  actorId: string | null;
  actorRole: string | null;
  via: Principal['via'];
  link?: { linkId: string; recipient: string };
} {
  if (p.link)
    return {
      actorId: null,
      actorRole: 'link',
      via: p.via,
      link: { linkId: p.link.linkId, recipient: p.link.recipient },
    };
  return { actorId: p.userId, actorRole: p.role, via: p.via };
}

export function sessionPrincipal(auth: AuthenticatedSession): Principal {
  return { userId: auth.user.id, role: auth.user.role, via: 'session', studyId: null };
}
