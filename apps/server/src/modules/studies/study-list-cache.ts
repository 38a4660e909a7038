import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { CHANNELS, type ChangeFeed } from '../../db/change-feed';
import { cachedBytes, type SerializedItems, type SerializedList } from '../../http/serialized-list';

const gzip = promisify(gzipCallback);

/**
 * One owner's studies list, serialised once and served until the owner's list version moves: the
 * body exactly as sent, and the same bytes gzip-encoded (a list is ~420 bytes a study and compresses
 * about 15-fold).
 */
export interface CachedStudyList extends SerializedList {
  version: number;
}

interface Deps {
  /** Announces changed owners (trigger on `studies`, any process); while not live, versions are read. */
  feed: ChangeFeed;
  /** The owner's list version; one indexed single-row read, on a miss or while the feed is down. */
  version(ownerId: string): Promise<number>;
  /** The list as the route sends it (http/serialized-list.ts). */
  build(ownerId: string): Promise<SerializedItems>;
  /** Memory the cached lists may take in this process. */
  maxBytes?: number;
}

interface Build {
  promise: Promise<CachedStudyList>;
  /** Set when a change to the owner's list was announced while building: do not keep the result. */
  stale: boolean;
}

/**
 * Per-owner cache of the serialised studies list. Every change to an owner's studies (ingest, delete,
 * the viewer's transfer status, from any process) bumps `study_list_versions` and notifies
 * `study_list_changed` through a trigger in the same transaction. While the change feed is live a
 * cached list is served without touching the database and dropped when its owner is announced; when
 * notifications may have been missed (listener reconnecting) every list is dropped, and until the
 * feed is live again each request compares the stored version instead. Concurrent misses for one
 * owner share one rebuild; least recently used lists are dropped beyond `maxBytes`.
 */
export function createStudyListCache(deps: Deps) {
  const maxBytes = deps.maxBytes ?? 64 * 1024 * 1024;
  const entries = new Map<string, CachedStudyList>();
  const building = new Map<string, Build>();
  // Moves when notifications may have been missed: builds begun before it are not kept.
  let gaps = 0;
  let bytes = 0;

  function drop(ownerId: string) {
    const old = entries.get(ownerId);
    if (!old) return;
    bytes -= cachedBytes(old);
    entries.delete(ownerId);
  }

  function store(ownerId: string, entry: CachedStudyList) {
    drop(ownerId);
    const size = cachedBytes(entry);
    if (size > maxBytes) return;
    entries.set(ownerId, entry);
    bytes += size;
    for (const [key, e] of entries) {
      if (bytes <= maxBytes) break;
      entries.delete(key);
      bytes -= cachedBytes(e);
    }
  }

  function changed(ownerId: string) {
    drop(ownerId);
    const b = building.get(ownerId);
    if (b) {
      b.stale = true;
      building.delete(ownerId);
    }
  }

  deps.feed.subscribe(CHANNELS.studyList, {
    change: changed,
    gap() {
      gaps++;
      entries.clear();
      bytes = 0;
      for (const b of building.values()) b.stale = true;
      building.clear();
    },
  });

  async function rebuild(ownerId: string, build: Build, gapsAtStart: number): Promise<CachedStudyList> {
    // The version is read before the rows: a change landing in between makes the stored version
    // older than the bytes, which only costs a rebuild next time, never a stale answer.
    const version = await deps.version(ownerId);
    const { body, bounds, count } = await deps.build(ownerId);
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 32);
    // Compressed off the main thread (zlib's pool), once per change of the list.
    const gzipped = await gzip(body, { level: 6 });
    const entry = { version, body, bounds, etag: `"${hash}"`, gzipped, gzippedEtag: `"${hash}-gz"`, count };
    if (!build.stale && gapsAtStart === gaps) store(ownerId, entry);
    return entry;
  }

  function startBuild(ownerId: string): Promise<CachedStudyList> {
    const b: Build = { promise: undefined as unknown as Promise<CachedStudyList>, stale: false };
    b.promise = rebuild(ownerId, b, gaps).finally(() => {
      if (building.get(ownerId) === b) building.delete(ownerId);
    });
    building.set(ownerId, b);
    return b.promise;
  }

  return {
    async get(ownerId: string): Promise<CachedStudyList> {
      if (deps.feed.live) {
        const hit = entries.get(ownerId);
        if (hit) {
          // Most recently used goes last, so eviction takes the oldest first.
          entries.delete(ownerId);
          entries.set(ownerId, hit);
          return hit;
        }
        return building.get(ownerId)?.promise ?? startBuild(ownerId);
      }
      // Notifications are not arriving: only the stored version tells whether the bytes are current.
      const version = await deps.version(ownerId);
      const hit = entries.get(ownerId);
      if (hit && hit.version === version) return hit;
      const pending = building.get(ownerId);
      if (pending) {
        const entry = await pending.promise;
        if (entry.version >= version) return entry;
      }
      return startBuild(ownerId);
    },
    /** A writer in this process changed the owner's studies (the notification follows). */
    changed,
    /** Cached lists and their size, for tests and diagnostics. */
    stats: () => ({ entries: entries.size, bytes }),
  };
}
export type StudyListCache = ReturnType<typeof createStudyListCache>;
