import { REAUTH_WINDOW_MINUTES } from '@mi/contracts/admin';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession } from '../auth';
import type { RequestMeta } from '../../http/request-meta';

const REAUTH_WINDOW_MS = REAUTH_WINDOW_MINUTES * 60_000;
export const REAUTH_MESSAGE = `For your security, please sign in again to continue (admin actions need a sign-in from the last ${REAUTH_WINDOW_MINUTES} minutes).`;

/** What an admin change is handed by its caller (a route, a job, another service): the admin's session. */
export type AdminSession = Pick<AuthenticatedSession, 'user' | 'session'>;

declare const recentAdmin: unique symbol;
/**
 * An admin whose sign-in is recent. Only `requireRecentSignIn` (below) makes one, so a service
 * method that takes a `RecentAdmin` cannot be reached without passing the rule.
 */
export type RecentAdmin = AuthenticatedSession['user'] & { readonly [recentAdmin]: true };

/**
 * The rule every admin change passes, whichever module makes it (accounts, professionals,
 * providers, vendors, help articles, the catalogue, ratings): the admin's session must be from the
 * last few minutes, else 403 REAUTH_REQUIRED (audited as denied), which the console answers by
 * asking for the password (and the second factor). Services check it themselves — directly, or
 * through `adminChanges` — so a route cannot forget it and a job or another service cannot skip
 * it; lint refuses it in route files (eslint.config.js, `adminRecencyInRoutes`).
 */
export function createRecentSignInRule(deps: { audit: AuditRecorder; now: () => Date }) {
  return async function requireRecentSignIn(
    admin: AdminSession,
    action: string,
    meta: RequestMeta,
  ): Promise<RecentAdmin> {
    if (deps.now().getTime() - admin.session.createdAt.getTime() <= REAUTH_WINDOW_MS)
      return admin.user as RecentAdmin;
    await deps.audit({
      actorId: admin.user.id,
      actorRole: admin.user.role,
      action,
      outcome: 'denied',
      requestId: meta.requestId,
      ip: meta.ip,
      details: { reason: 'reauthentication_required' },
    });
    throw new AppError('REAUTH_REQUIRED', REAUTH_MESSAGE);
  };
}
export type RecentSignInRule = ReturnType<typeof createRecentSignInRule>;

type AdminChange = (admin: RecentAdmin, ...rest: never[]) => Promise<unknown>;
type Rest<F> = F extends (admin: RecentAdmin, ...rest: infer R) => unknown ? R : never;
/** The same changes, each taking the admin's session in place of a `RecentAdmin`. */
export type AdminChanges<M extends Record<string, AdminChange>> = {
  [K in keyof M]: (admin: AdminSession, ...rest: Rest<M[K]>) => ReturnType<M[K]>;
};

/**
 * A service's group of admin changes: each method takes the admin's session first and the
 * request's `RequestMeta` last; it runs only after `rule` passes, audited as `action` when it
 * does not. The methods written inside receive the `RecentAdmin`.
 */
export function adminChanges<M extends Record<string, AdminChange>>(
  rule: RecentSignInRule,
  action: string,
  methods: M,
): AdminChanges<M> {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(methods)) {
    guarded[name] = async (admin: AdminSession, ...rest: unknown[]) => {
      const meta = rest.at(-1) as RequestMeta;
      const actor = await rule(admin, action, meta);
      return (method as (a: RecentAdmin, ...r: unknown[]) => Promise<unknown>)(actor, ...rest);
    };
  }
  return guarded as AdminChanges<M>;
}
