import type { AuthenticatedSession } from '../auth/auth.service';

/**
 * Who is asking for a study: a signed-in user (any study they may see) or a viewer grant (the one
 * study it was issued for, with its user's rights). Every study-derived route turns its caller into
 * one of these and hands it to `requireStudyAccess` (access.service.ts).
 */
export interface Principal {
  userId: string;
  role: string | null;
  via: 'session' | 'grant';
  /** Set for viewer grants: the only study this credential opens. */
  studyId: string | null;
}

export function sessionPrincipal(auth: AuthenticatedSession): Principal {
  return { userId: auth.user.id, role: auth.user.role, via: 'session', studyId: null };
}
