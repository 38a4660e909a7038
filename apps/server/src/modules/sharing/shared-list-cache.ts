import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { CHANNELS, type ChangeFeed } from '../../db/change-feed';
import { cachedBytes, type SerializedItems, type SerializedList } from '../../http/serialized-list';

const gzip = promisify(gzipCallback);

/** One user's Shared Studies list, serialised once and served until something in it changes. */
export interface CachedSharedList extends SerializedList {
  version: string;
  /** Every owner with a live share to the user (whose changes may change the list). */
  owners: string[];
}

/** The list as the route sends it (http/serialized-list.ts). */
export type BuiltSharedList = SerializedItems;

/** What the list depends on: its fingerprint, and every owner with a live share to the user. */
export interface SharedListFingerprint {
  version: string;
  owners: string[];
}

/**
 * Per-user cache of the serialised Shared Studies list. A user's list changes when a share to them
 * is added, moved or ends (trigger on `study_shares` → `shared_list_changed`), when an owner in it
 * changes a study (`study_list_changed`) or their account (name, sharing switch: `auth_changed`).
 * While the change feed is live a cached list is served without touching the database and dropped
 * on any of these; otherwise each request compares the list's fingerprint (one indexed aggregate)
 * and rebuilds only when it moved. Least recently used lists are dropped beyond `maxBytes`.
 */
export function createSharedListCache(deps: { feed: ChangeFeed; maxBytes?: number }) {
  const maxBytes = deps.maxBytes ?? 32 * 1024 * 1024;
  const entries = new Map<string, CachedSharedList>();
  /** Owner → users whose cached list shows their studies. */
  const byOwner = new Map<string, Set<string>>();
  // Moves on every change heard: a build that overlapped one is served but not kept.
  let epoch = 0;
  let bytes = 0;

  function drop(userId: string) {
    const old = entries.get(userId);
    if (!old) return;
    bytes -= cachedBytes(old);
    entries.delete(userId);
    for (const owner of old.owners) {
      const users = byOwner.get(owner);
      users?.delete(userId);
      if (users?.size === 0) byOwner.delete(owner);
    }
  }
  const dropShowing = (ownerId: string) => {
    for (const userId of [...(byOwner.get(ownerId) ?? [])]) drop(userId);
  };
  const dropAll = () => {
    epoch++;
    entries.clear();
    byOwner.clear();
    bytes = 0;
  };

  deps.feed.subscribe(CHANNELS.sharedList, {
    change: (userId) => {
      epoch++;
      drop(userId);
    },
    gap: dropAll,
  });
  deps.feed.subscribe(CHANNELS.studyList, {
    change: (ownerId) => {
      epoch++;
      dropShowing(ownerId);
    },
    gap: dropAll,
  });
  deps.feed.subscribe(CHANNELS.auth, {
    change: (payload) => {
      if (payload === '*') return dropAll();
      if (!payload.startsWith('u:')) return;
      epoch++;
      const userId = payload.slice(2);
      // The user's own account (a confirmed email may bring shares waiting for it) or an owner's.
      drop(userId);
      dropShowing(userId);
    },
    gap: dropAll,
  });

  function keep(userId: string, list: CachedSharedList) {
    drop(userId);
    entries.set(userId, list);
    bytes += cachedBytes(list);
    for (const owner of list.owners) {
      const users = byOwner.get(owner) ?? new Set<string>();
      users.add(userId);
      byOwner.set(owner, users);
    }
    for (const [id] of entries) {
      if (bytes <= maxBytes) break;
      drop(id);
    }
  }

  async function serialise(fp: SharedListFingerprint, built: BuiltSharedList): Promise<CachedSharedList> {
    const gzipped = await gzip(built.body, { level: 6 });
    const tag = (b: Buffer) => `"${createHash('sha1').update(b).digest('base64url')}"`;
    return {
      ...built,
      version: fp.version,
      etag: tag(built.body),
      gzipped,
      gzippedEtag: tag(gzipped),
      owners: fp.owners,
    };
  }

  return {
    /**
     * The user's list: from memory while the feed vouches for it; otherwise after `fingerprint`
     * (which may also bring shares waiting for the user) and, when it moved, `build`.
     */
    async get(
      userId: string,
      fingerprint: () => Promise<SharedListFingerprint>,
      build: () => Promise<BuiltSharedList>,
    ): Promise<CachedSharedList> {
      const hit = entries.get(userId);
      if (hit && deps.feed.live) {
        entries.delete(userId);
        entries.set(userId, hit);
        return hit;
      }
      const startedAt = epoch;
      const fp = await fingerprint();
      if (hit && hit.version === fp.version) return hit;
      const list = await serialise(fp, await build());
      if (epoch === startedAt) keep(userId, list);
      return list;
    },
  };
}
export type SharedListCache = ReturnType<typeof createSharedListCache>;
