import { createHash, randomBytes } from 'node:crypto';
import type { ViewerGrant, ViewerGrantsRepository } from './viewer-grants.repository';

export type { ViewerGrant } from './viewer-grants.repository';

/** How long a viewer credential opens its study. */
export const VIEWER_GRANT_TTL_MS = 2 * 60 * 60 * 1000;
/** Credentials checked within this window are not re-read from the database. */
const CHECK_CACHE_MS = 2_000;
const PREFIX = 'vg_';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Name of the cookie that binds a grant to the browser it was first used in. */
export const bindingCookieName = (grantId: string) => `vb_${grantId.replace(/-/g, '')}`;

/**
 * Viewer credentials: opaque tokens, stored hashed, each opening one study for one user until
 * it expires or is revoked. A grant dies with its study (foreign key); what it may read is decided
 * on every request by the access module (modules/access), so losing access ends it at once.
 */
export function createViewerGrants(repo: ViewerGrantsRepository, now: () => Date) {
  const recent = new Map<string, { grant: ViewerGrant; at: number }>();

  return {
    /** A credential for one study, ended with the sign-in session that asked for it (`sessionId`). */
    async issue(
      userId: string,
      studyId: string,
      sessionId: string | null,
    ): Promise<{ token: string; expiresAt: Date }> {
      const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
      const expiresAt = new Date(now().getTime() + VIEWER_GRANT_TTL_MS);
      await repo.insert({ tokenHash: hash(token), userId, studyId, expiresAt, sessionId });
      return { token, expiresAt };
    },

    /** The grant behind a token, or null when it is unknown, expired, revoked, or its user or session ended. */
    async verify(token: string): Promise<ViewerGrant | null> {
      if (!token.startsWith(PREFIX) || token.length > 100) return null;
      const h = hash(token);
      const hit = recent.get(h);
      if (hit && Date.now() - hit.at < CHECK_CACHE_MS) return hit.grant;
      const row = await repo.findLive(h, now());
      if (!row) {
        recent.delete(h);
        return null;
      }
      if (recent.size > 5_000) recent.clear();
      recent.set(h, { grant: row, at: Date.now() });
      return row;
    },

    /**
     * Binds the grant to one browser: the first caller gets a secret (kept in an httpOnly cookie of
     * the viewer origin); anyone else presenting the same credential later is refused.
     */
    async bind(
      grant: ViewerGrant,
      presented: string | undefined,
    ): Promise<{ secret: string } | 'bound' | 'refused'> {
      if (grant.bindingHash) return presented && hash(presented) === grant.bindingHash ? 'bound' : 'refused';
      const secret = randomBytes(32).toString('base64url');
      const bound = await repo.bindOnce(grant.grantId, hash(secret));
      recent.clear();
      return bound ? { secret } : 'refused';
    },

    /** Whether a request carries the secret of the browser the grant is bound to. */
    isBoundTo(grant: ViewerGrant, presented: string | undefined): boolean {
      return Boolean(grant.bindingHash && presented && hash(presented) === grant.bindingHash);
    },

    /** Ends every credential of a study (for example when access to it is withdrawn). */
    async revokeStudy(studyId: string): Promise<void> {
      await repo.revokeStudy(studyId, now());
      recent.clear();
    },
  };
}
export type ViewerGrants = ReturnType<typeof createViewerGrants>;
