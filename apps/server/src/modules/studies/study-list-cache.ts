import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';

const gzip = promisify(gzipCallback);

/** One owner's studies list, serialised once and served until the owner's list version moves. */
export interface CachedStudyList {
  version: number;
  /** `{"data":[…]}` exactly as sent. */
  body: Buffer;
  etag: string;
  /** The same bytes gzip-encoded (a list is ~650 bytes a study and compresses about 15-fold), and its ETag. */
  gzipped: Buffer;
  gzippedEtag: string;
  count: number;
}

interface Deps {
  /** The owner's list version; one indexed single-row read. */
  version(ownerId: string): Promise<number>;
  /** The list as the route sends it. */
  build(ownerId: string): Promise<{ json: string; count: number }>;
  /** Memory the cached lists may take in this process. */
  maxBytes?: number;
}

/**
 * Per-owner cache of the serialised studies list. Every change to an owner's studies (ingest, delete,
 * the viewer's transfer status, from any process) bumps `study_list_versions` through a trigger in
 * the same transaction, so one cheap read tells whether the cached bytes are current. Concurrent
 * misses for one owner share one rebuild; least recently used lists are dropped beyond `maxBytes`.
 */
export function createStudyListCache(deps: Deps) {
  const maxBytes = deps.maxBytes ?? 64 * 1024 * 1024;
  const entries = new Map<string, CachedStudyList>();
  const building = new Map<string, Promise<CachedStudyList>>();
  let bytes = 0;

  function store(ownerId: string, entry: CachedStudyList) {
    const old = entries.get(ownerId);
    if (old) {
      bytes -= old.body.length + old.gzipped.length;
      entries.delete(ownerId);
    }
    const size = entry.body.length + entry.gzipped.length;
    if (size > maxBytes) return;
    entries.set(ownerId, entry);
    bytes += size;
    for (const [key, e] of entries) {
      if (bytes <= maxBytes) break;
      entries.delete(key);
      bytes -= e.body.length + e.gzipped.length;
    }
  }

  async function rebuild(ownerId: string, version: number): Promise<CachedStudyList> {
    // The version is read before the rows: a change landing in between makes the stored version
    // older than the bytes, which only costs a rebuild next time, never a stale answer.
    const { json, count } = await deps.build(ownerId);
    const body = Buffer.from(json);
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 32);
    // Compressed off the main thread (zlib's pool), once per change of the list.
    const gzipped = await gzip(body, { level: 6 });
    const entry = { version, body, etag: `"${hash}"`, gzipped, gzippedEtag: `"${hash}-gz"`, count };
    store(ownerId, entry);
    return entry;
  }

  return {
    async get(ownerId: string): Promise<CachedStudyList> {
      const version = await deps.version(ownerId);
      const hit = entries.get(ownerId);
      if (hit && hit.version === version) {
        // Most recently used goes last, so eviction takes the oldest first.
        entries.delete(ownerId);
        entries.set(ownerId, hit);
        return hit;
      }
      const key = `${ownerId}@${version}`;
      let pending = building.get(key);
      if (!pending) {
        pending = rebuild(ownerId, version).finally(() => building.delete(key));
        building.set(key, pending);
      }
      return pending;
    },
    /** Cached lists and their size, for tests and diagnostics. */
    stats: () => ({ entries: entries.size, bytes }),
  };
}
export type StudyListCache = ReturnType<typeof createStudyListCache>;
