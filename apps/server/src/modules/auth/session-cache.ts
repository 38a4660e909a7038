import { CHANNELS, type ChangeFeed } from '../../db/change-feed';
import type { AccountChanges } from '../accounts';
import type { CachedSession } from './sessions.repository';

export type { CachedSession } from './sessions.repository';

interface Entry extends CachedSession {
  storedAt: number;
}

/**
 * What writers of sessions and accounts tell the cache: take a mark before the write, then report
 * the committed change. The entry is evicted here at once, and the returned promise settles when
 * this process has heard the change's own notification (the database signals every listening
 * process at commit, so the others hear it at about the same moment); a revoking request answers
 * only after that.
 */
export interface AuthChanges extends AccountChanges {
  session(id: string, mark: number): Promise<void>;
}

interface Options {
  feed: ChangeFeed;
  /** Sessions kept in memory (least recently used go first). */
  maxEntries?: number;
  /** A cached session is re-read after this long even if no change was announced. */
  maxAgeMs?: number;
}

/**
 * Live sessions (with their account) by token hash, so an authenticated request does not read the
 * database. Every change to a session or an account, by any module or process, is announced by a
 * trigger (LISTEN/NOTIFY) and evicts the entry; writers in this process also evict directly, so their
 * own next request never sees the old row. While the feed is not live nothing is served from here.
 * Expiry (idle, absolute) is still decided per request from the cached timestamps; the caller
 * re-reads the row before ending a session, since another process may have seen activity since.
 */
export function createSessionCache(opts: Options) {
  const { feed } = opts;
  const maxEntries = opts.maxEntries ?? 10_000;
  const maxAgeMs = opts.maxAgeMs ?? 60_000;
  const entries = new Map<string, Entry>();
  const hashBySession = new Map<string, string>();
  const hashesByUser = new Map<string, Set<string>>();
  // Moves on every eviction: a read that started before it may hold what was just invalidated.
  let generation = 0;
  let hits = 0;
  let misses = 0;

  function remove(hash: string) {
    const e = entries.get(hash);
    if (!e) return;
    entries.delete(hash);
    hashBySession.delete(e.session.id);
    const set = hashesByUser.get(e.user.id);
    set?.delete(hash);
    if (set?.size === 0) hashesByUser.delete(e.user.id);
  }
  function clear() {
    generation++;
    entries.clear();
    hashBySession.clear();
    hashesByUser.clear();
  }
  function evictSession(id: string) {
    generation++;
    const hash = hashBySession.get(id);
    if (hash) remove(hash);
  }
  function evictUser(id: string) {
    generation++;
    for (const hash of [...(hashesByUser.get(id) ?? [])]) remove(hash);
  }
  const changes: AuthChanges = {
    mark: () => feed.mark(),
    session(id, mark) {
      evictSession(id);
      return feed.echo(CHANNELS.auth, `s:${id}`, mark);
    },
    user(id, mark) {
      evictUser(id);
      return feed.echo(CHANNELS.auth, `u:${id}`, mark);
    },
  };

  feed.subscribe(CHANNELS.auth, {
    change(payload) {
      if (payload.startsWith('s:')) evictSession(payload.slice(2));
      else if (payload.startsWith('u:')) evictUser(payload.slice(2));
      else clear();
    },
    gap: clear,
  });

  return {
    changes,
    /** A token is about to be looked up in the database; pass this to `set` with the result. */
    begin: () => generation,
    get(hash: string): CachedSession | undefined {
      const e = feed.live ? entries.get(hash) : undefined;
      if (e && performance.now() - e.storedAt > maxAgeMs) remove(hash);
      else if (e) {
        hits++;
        // Most recently used goes last, so eviction takes the oldest first.
        entries.delete(hash);
        entries.set(hash, e);
        return e;
      }
      misses++;
      return undefined;
    },
    /** Keeps what the database said, unless something was invalidated since the read began. */
    set(hash: string, found: CachedSession, readGeneration: number) {
      if (!feed.live || readGeneration !== generation) return;
      remove(hash);
      entries.set(hash, { ...found, storedAt: performance.now() });
      hashBySession.set(found.session.id, hash);
      let set = hashesByUser.get(found.user.id);
      if (!set) hashesByUser.set(found.user.id, (set = new Set()));
      set.add(hash);
      for (const key of entries.keys()) {
        if (entries.size <= maxEntries) break;
        remove(key);
      }
    },
    /** This process just recorded activity on the session (last seen moves only forward). */
    touched(sessionId: string, at: Date) {
      const hash = hashBySession.get(sessionId);
      const e = hash === undefined ? undefined : entries.get(hash);
      if (e && e.session.lastSeenAt < at) e.session = { ...e.session, lastSeenAt: at };
    },
    /** Cached sessions and lookups answered from memory or not, for tests and diagnostics. */
    stats: () => ({ entries: entries.size, hits, misses }),
  };
}
export type SessionCache = ReturnType<typeof createSessionCache>;
