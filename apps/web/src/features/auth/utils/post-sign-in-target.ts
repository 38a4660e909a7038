import { paths, withQuery } from '@/config/paths';

/**
 * The 'mode' redirects: where a link with ?mode=… lands once the user is signed in, or null
 * when the URL has no (known) mode. The returned URL never carries `mode`, so it cannot loop.
 */
export function modeRedirect(search: string): string | null {
  const params = new URLSearchParams(search);
  switch (params.get('mode')) {
    case 'direct_upload':
      params.delete('mode');
      return withQuery(paths.uploadOnly, params);
    case 'shared_studies':
      // shareToken goes with shareId: both were used at sign-in (features/auth/api/link-share.ts).
      for (const key of ['mode', 'userId', 'email', 'shareId', 'shareToken']) params.delete(key);
      params.set('tab', 'shared_studies');
      return withQuery(paths.studies, params);
    case 'transfer_ownership':
      params.delete('mode');
      params.set('tab', 'studies');
      return withQuery(paths.studies, params);
    default:
      return null;
  }
}

/** Where a sign-in from a signed-out page (login, registration) goes: the mode target, else '/' keeping shareId. */
export function postSignInTarget(search: string): string {
  const target = modeRedirect(search);
  if (target) return target;
  const shareId = new URLSearchParams(search).get('shareId');
  return withQuery(paths.home, { shareId });
}

/** The query string to carry between signed-out pages (mode, shareId, invitedBy, …). */
export function carrySearch(search: string): string {
  const params = new URLSearchParams(search);
  for (const key of ['userId', 'email', 'token', 'challenge']) params.delete(key);
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}

/**
 * An emailed share link (mode=shared_studies with its shareId) opened while signed out: the address
 * it was sent to ('' when it names none), for the sign-in page to say why the user is there and to
 * fill in; null for any other visit. The address is handed to the registration pages in the
 * router's state, never carried in their URLs (carrySearch).
 */
export function sharedStudyInvite(search: string): { email: string } | null {
  const params = new URLSearchParams(search);
  if (params.get('mode') !== 'shared_studies' || !params.get('shareId')) return null;
  return { email: params.get('email') ?? '' };
}

/** The address a registration page was handed by the sign-in page (see sharedStudyInvite). */
export function handedEmail(state: unknown): string {
  const email = (state as { email?: unknown } | null)?.email;
  return typeof email === 'string' ? email : '';
}
