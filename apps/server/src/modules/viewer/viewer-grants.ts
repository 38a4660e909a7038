import { createHash, randomBytes } from 'node:crypto';
import { CHANNELS, type ChangeFeed } from '../../db/change-feed';
import type { ViewerGrant, ViewerGrantsRepository } from './viewer-grants.repository';

export type { ViewerGrant } from './viewer-grants.repository';

/** How long a viewer credential opens its study. */
export const VIEWER_GRANT_TTL_MS = 2 * 60 * 60 * 1000;
/**
 * A checked credential is answered from memory for at most this long (a viewer reads frames in
 * bursts). Ending its session or account evicts it at once; the bound only covers what the change
 * feed does not carry.
 */
const CHECK_CACHE_MS = 2_000;
const MAX_ENTRIES = 5_000;
const PREFIX = 'vg_';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Name of the cookie that binds a grant to the browser it was first used in. */
export const bindingCookieName = (grantId: string) => `vb_${grantId.replace(/-/g, '')}`;

/**
 * Grants checked recently, kept in memory while the change feed is live; a session's or user's
 * change (or a gap in the feed) evicts theirs (or everything).
 */
function createGrantCache(feed: ChangeFeed) {
  const recent = new Map<string, { grant: ViewerGrant; at: number }>();
  const hashesBySession = new Map<string, Set<string>>();
  const hashesByUser = new Map<string, Set<string>>();
  // Moves on every eviction: a database read that started before it may hold what was just ended.
  let generation = 0;
  let hits = 0;

  const index = (map: Map<string, Set<string>>, key: string, h: string) => {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(h);
  };
  const unindex = (map: Map<string, Set<string>>, key: string, h: string) => {
    const set = map.get(key);
    set?.delete(h);
    if (set?.size === 0) map.delete(key);
  };
  function remove(h: string) {
    const e = recent.get(h);
    if (!e) return;
    recent.delete(h);
    if (e.grant.sessionId) unindex(hashesBySession, e.grant.sessionId, h);
    unindex(hashesByUser, e.grant.userId, h);
  }
  function clear() {
    generation++;
    recent.clear();
    hashesBySession.clear();
    hashesByUser.clear();
  }
  function evict(map: Map<string, Set<string>>, key: string) {
    generation++;
    for (const h of [...(map.get(key) ?? [])]) remove(h);
  }
  function keep(h: string, grant: ViewerGrant, readGeneration: number) {
    if (!feed.live || readGeneration !== generation) return;
    remove(h);
    if (recent.size >= MAX_ENTRIES) clear();
    recent.set(h, { grant, at: Date.now() });
    if (grant.sessionId) index(hashesBySession, grant.sessionId, h);
    index(hashesByUser, grant.userId, h);
  }

  feed.subscribe(CHANNELS.auth, {
    change(payload) {
      if (payload.startsWith('s:')) evict(hashesBySession, payload.slice(2));
      else if (payload.startsWith('u:')) evict(hashesByUser, payload.slice(2));
      else clear();
    },
    gap: clear,
  });

  return {
    /** The grant kept for a token's hash, while the feed is live. */
    get: (h: string) => (feed.live ? recent.get(h) : undefined),
    countHit: () => {
      hits++;
    },
    /** Read before a database read: a `keep` after an eviction in between keeps nothing. */
    generation: () => generation,
    remove,
    clear,
    keep,
    stats: () => ({ entries: recent.size, hits }),
  };
}

/**
 * Viewer credentials: opaque tokens, stored hashed, each opening one study for one user until
 * it expires or is revoked. A grant dies with its study (foreign key); what it may read is decided
 * on every request by the access module (modules/access), so losing access ends it at once.
 *
 * Checked grants are kept briefly in memory. A grant ends with the sign-in session that asked for
 * it and with its account: the database announces every change to a session or an account to every
 * process (db/change-feed.ts, the notifications that keep modules/auth/session-cache.ts current), and
 * the announcement evicts the grants of that session or user here, before the revoking request
 * answers. While the feed is not live nothing is answered from memory.
 */
export function createViewerGrants(repo: ViewerGrantsRepository, now: () => Date, feed: ChangeFeed) {
  const cache = createGrantCache(feed);

  return {
    /**
     * A credential for one study, ended with the sign-in session that asked for it (`sessionId`).
     * For a study link's recipient, `link` names their link credential (the grant then reads as
     * that link, and lives no longer than it).
     */
    async issue(
      userId: string,
      studyId: string,
      sessionId: string | null,
      link?: { credentialId: string; expiresAt: Date },
    ): Promise<{ token: string; expiresAt: Date }> {
      const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
      const ttlEnd = now().getTime() + VIEWER_GRANT_TTL_MS;
      const expiresAt = new Date(link ? Math.min(ttlEnd, link.expiresAt.getTime()) : ttlEnd);
      await repo.insert({
        tokenHash: hash(token),
        userId,
        studyId,
        expiresAt,
        sessionId,
        linkCredentialId: link?.credentialId ?? null,
      });
      return { token, expiresAt };
    },

    /** The grant behind a token, or null when it is unknown, expired, revoked, or its user or session ended. */
    async verify(token: string): Promise<ViewerGrant | null> {
      if (!token.startsWith(PREFIX) || token.length > 100) return null;
      const h = hash(token);
      const hit = cache.get(h);
      if (hit && Date.now() - hit.at < CHECK_CACHE_MS && hit.grant.expiresAt > now()) {
        cache.countHit();
        return hit.grant;
      }
      cache.remove(h);
      const readGeneration = cache.generation();
      const row = await repo.findLive(h, now());
      if (!row) return null;
      cache.keep(h, row, readGeneration);
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
      // The cached copy has no binding yet.
      cache.clear();
      return bound ? { secret } : 'refused';
    },

    /** Whether a request carries the secret of the browser the grant is bound to. */
    isBoundTo(grant: ViewerGrant, presented: string | undefined): boolean {
      return Boolean(grant.bindingHash && presented && hash(presented) === grant.bindingHash);
    },

    /** Checks answered from memory and grants kept, for tests and diagnostics. */
    stats: cache.stats,

    /** Ends every credential of a study (for example when access to it is withdrawn). */
    async revokeStudy(studyId: string): Promise<void> {
      await repo.revokeStudy(studyId, now());
      cache.clear();
    },
  };
}
export type ViewerGrants = ReturnType<typeof createViewerGrants>;
