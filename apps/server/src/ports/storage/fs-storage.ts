import { randomUUID } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  assertSafeKey,
  assertValidRange,
  compareKeys,
  InvalidKeyError,
  isBodyParts,
  normalizePrefix,
  ObjectNotFoundError,
  RangeNotSatisfiableError,
  type ByteRange,
  type ObjectBody,
  type ObjectStat,
  type ObjectStorage,
  type PutOptions,
} from './storage';

/**
 * Directory under the root where puts are written before being renamed into place. It lives inside
 * the root so the rename never crosses a filesystem (rename is only atomic within one), and apart
 * from the key tree so `list` can never see a half-written file. Keys starting with `.staging/` are
 * refused so they cannot collide with it.
 */
const STAGING_DIR = '.staging';

/** Unlinks in flight at once in deleteMany. */
const DELETE_CONCURRENCY = 16;

/**
 * Reads of up to this many bytes are made in one piece: one read call and one buffer for a whole
 * study file, where the stream's default 64 KiB would take a round trip to the thread pool for each
 * 64 KiB. Larger reads stream in the default chunks, so memory stays bounded for big objects.
 */
const ONE_PIECE_MAX = 1024 * 1024;

/** Errors that mean "no such object" when they come from resolving or opening a key's path. */
const MISSING = new Set(['ENOENT', 'ENOTDIR']);

/**
 * Objects as plain files under `rootDir`: key `a/b/c.dcm` is the file `rootDir/a/b/c.dcm`.
 *
 * Because a path cannot be both a file and a directory, the keys `a/b` and `a/b/c` cannot both
 * exist (S3 allows it); the second put fails with InvalidKeyError.
 */
export class FsObjectStorage implements ObjectStorage {
  readonly kind = 'fs' as const;
  private readonly root: string;
  private readonly staging: string;
  /** realpath of the root, once it exists; symlink checks compare against it. */
  private realRoot: string | undefined;

  constructor(rootDir: string) {
    this.root = path.resolve(rootDir);
    this.staging = path.join(this.root, STAGING_DIR);
  }

  async put(key: string, body: ObjectBody, opts: PutOptions = {}): Promise<ObjectStat> {
    let safeKey: string;
    let target: string;
    try {
      safeKey = assertSafeKey(key);
      target = this.pathFor(safeKey);
    } catch (err) {
      destroyBody(body);
      throw err;
    }

    const tmp = path.join(this.staging, `${randomUUID()}.tmp`);
    let fh: FileHandle | undefined;
    try {
      const realRoot = this.realRoot ?? (await this.ensureRoot());
      fh = await this.openStaging(tmp);
      const size = await writeBody(fh, body, opts.size);
      // Data must be on disk before the rename publishes it, or a crash could leave the new name
      // pointing at an empty or partial file.
      await fh.sync();
      const { mtime } = await fh.stat();
      await fh.close();
      fh = undefined;

      await this.renameIntoPlace(tmp, target, safeKey, realRoot, !opts.deferDurability);
      return { key: safeKey, size, lastModified: mtime };
    } catch (err) {
      destroyBody(body);
      await fh?.close().catch(() => {});
      await fsp.rm(tmp, { force: true }).catch(() => {});
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const safeKey = assertSafeKey(key);
    if (range) assertValidRange(range);
    const real = await this.resolveExisting(safeKey);
    if (real === null) throw new ObjectNotFoundError(safeKey);

    let fh: FileHandle;
    try {
      // O_NOFOLLOW: if the file was swapped for a symlink after the realpath check, fail instead of following it.
      fh = await fsp.open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      if (MISSING.has(errCode(err))) throw new ObjectNotFoundError(safeKey);
      if (errCode(err) === 'ELOOP') throw new InvalidKeyError(`object key resolves to a symlink: ${safeKey}`);
      throw err;
    }
    try {
      // Size and type come from the open file, so a concurrent replace cannot make them disagree with the bytes read.
      const st = await fh.stat();
      if (!st.isFile()) throw new ObjectNotFoundError(safeKey);
      if (!range) return st.size === 0 ? fh.createReadStream() : readStream(fh, 0, st.size - 1);
      if (range.start >= st.size) throw new RangeNotSatisfiableError(safeKey, range, st.size);
      const end = Math.min(range.end ?? st.size - 1, st.size - 1);
      // The stream owns the handle from here (autoClose) and closes it on end, error or destroy.
      return readStream(fh, range.start, end);
    } catch (err) {
      await fh.close().catch(() => {});
      throw err;
    }
  }

  async adoptFile(sourcePath: string, key: string): Promise<ObjectStat | null> {
    const safeKey = assertSafeKey(key);
    const target = this.pathFor(safeKey);
    const realRoot = await this.ensureRoot();
    // O_NOFOLLOW and the type check: only a regular file is adopted, never what a symlink points at.
    const fh = await fsp.open(sourcePath, constants.O_RDONLY | constants.O_NOFOLLOW);
    // Linked under staging and renamed into place, like a put: the key never names a partial object.
    // Linked first, so that a file that cannot be linked (another file system) is known at once.
    const tmp = path.join(this.staging, `${randomUUID()}.tmp`);
    let st;
    try {
      st = await fh.stat();
      if (!st.isFile()) throw new InvalidKeyError(`not a regular file: ${sourcePath}`);
      try {
        await fsp.link(sourcePath, tmp);
      } catch (err) {
        if (['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK'].includes(errCode(err))) return null;
        throw err;
      }
      // The bytes were written without a sync; make them durable before the object is published.
      await fh.datasync();
      await this.renameIntoPlace(tmp, target, safeKey, realRoot, true);
    } catch (err) {
      await fsp.rm(tmp, { force: true }).catch(() => {});
      throw err;
    } finally {
      await fh.close();
    }
    return { key: safeKey, size: st.size, lastModified: st.mtime };
  }

  async persist(keys: readonly string[]): Promise<void> {
    // File contents were synced by put(); what a deferred put leaves unsynced is its directory entry.
    const dirs = new Set(keys.map((k) => path.dirname(this.pathFor(assertSafeKey(k)))));
    await Promise.all(
      [...dirs].map((dir) =>
        fsyncDir(dir).catch((err: unknown) => {
          // A folder that is gone holds nothing left to persist (its objects were deleted since).
          if (!MISSING.has(errCode(err))) throw err;
        }),
      ),
    );
  }

  async stat(key: string): Promise<ObjectStat | null> {
    const safeKey = assertSafeKey(key);
    const real = await this.resolveExisting(safeKey);
    if (real === null) return null;
    try {
      const st = await fsp.lstat(real);
      return st.isFile() ? { key: safeKey, size: st.size, lastModified: st.mtime } : null;
    } catch (err) {
      if (MISSING.has(errCode(err))) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const safeKey = assertSafeKey(key);
    const target = this.pathFor(safeKey);
    const realRoot = await this.existingRealRoot();
    if (realRoot === undefined) return;
    const parent = path.dirname(target);
    const realParent = await realpathOrNull(parent);
    if (realParent === null) return;
    this.assertWithinRoot(realParent, realRoot, safeKey);
    const file = path.join(realParent, path.basename(target));
    try {
      // unlink never follows a symlink in the last component, so this cannot delete outside the root.
      await fsp.unlink(file);
    } catch (err) {
      if (MISSING.has(errCode(err))) return;
      // The key names a folder (`a` while `a/x` exists), which is not an object. Linux says EISDIR,
      // macOS EPERM; a real permission problem must still surface.
      if ((errCode(err) === 'EISDIR' || errCode(err) === 'EPERM') && (await isDirectory(file))) return;
      throw err;
    }
    await this.pruneEmptyDirs(parent);
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    const unique = [...new Set(keys.map((k) => assertSafeKey(k)))];
    for (const key of unique) this.pathFor(key);
    // Unlinks are independent and mostly wait on the disk, so a few run at once.
    let next = 0;
    let failure: unknown;
    const worker = async () => {
      while (failure === undefined && next < unique.length) {
        const key = unique[next++]!;
        await this.delete(key).catch((err: unknown) => {
          failure ??= err;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, unique.length) }, worker));
    if (failure !== undefined) throw failure;
  }

  async deletePrefix(prefix: string): Promise<number> {
    const safePrefix = normalizePrefix(prefix);
    if (safePrefix === '')
      throw new InvalidKeyError('refusing to delete every object: the prefix must not be empty');
    const dir = this.pathFor(safePrefix.slice(0, -1));
    const realRoot = await this.existingRealRoot();
    if (realRoot === undefined) return 0;
    const realDir = await realpathOrNull(dir);
    if (realDir === null) return 0;
    this.assertWithinRoot(realDir, realRoot, safePrefix);
    // A symlinked folder resolving to the root itself would otherwise make this wipe the whole store.
    if (realDir === realRoot) throw new InvalidKeyError(`prefix resolves to the storage root: ${safePrefix}`);

    const removed = await removeTree(realDir);
    await fsp.rmdir(realDir).catch(ignoreCodes('ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR'));
    await this.pruneEmptyDirs(path.dirname(dir));
    return removed;
  }

  list(prefix: string): AsyncIterable<ObjectStat> {
    // Validated eagerly so a bad prefix throws at the call, before any I/O.
    const safePrefix = normalizePrefix(prefix);
    const dir = safePrefix === '' ? this.root : this.pathFor(safePrefix.slice(0, -1));
    return this.walkPrefix(dir, safePrefix);
  }

  async check(): Promise<void> {
    await this.ensureRoot();
    // Proves the disk is writable and fsync works, not just that the directory exists.
    const probe = path.join(this.staging, `health-${randomUUID()}.tmp`);
    try {
      const fh = await fsp.open(probe, 'wx');
      try {
        await fh.writeFile('ok');
        await fh.sync();
      } finally {
        await fh.close();
      }
    } finally {
      await fsp.rm(probe, { force: true });
    }
  }

  /**
   * Removes temp files left in the staging directory by a crash mid-put. Only files older than
   * `maxAgeMs` are touched so puts in flight are left alone. Returns how many were removed.
   */
  async sweepStaging(maxAgeMs = 24 * 60 * 60 * 1000): Promise<number> {
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(this.staging, { withFileTypes: true });
    } catch (err) {
      if (MISSING.has(errCode(err))) return 0;
      throw err;
    }
    const cutoff = Date.now() - maxAgeMs;
    let removed = 0;
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const file = path.join(this.staging, entry.name);
      const st = await fsp.lstat(file).catch(() => null);
      if (st && st.mtimeMs < cutoff) {
        await fsp.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  // --- internals ---

  /** The absolute path for a validated key; a second, purely lexical check that it stays under the root. */
  private pathFor(safeKey: string): string {
    if (safeKey === STAGING_DIR || safeKey.startsWith(`${STAGING_DIR}/`))
      throw new InvalidKeyError(`"${STAGING_DIR}" is reserved by the file store`);
    const resolved = path.resolve(this.root, ...safeKey.split('/'));
    if (!isInside(resolved, this.root))
      throw new InvalidKeyError(`object key escapes the storage root: ${safeKey}`);
    return resolved;
  }

  /** Symlinks can defeat the lexical check; every real path we touch must also be under the real root. */
  private assertWithinRoot(realPath: string, realRoot: string, key: string): void {
    if (realPath !== realRoot && !isInside(realPath, realRoot))
      throw new InvalidKeyError(`object key resolves outside the storage root: ${key}`);
  }

  /**
   * Creates a staging file. The staging folder is made again only when it is missing: the store
   * recovers if someone removes it, and a put costs no mkdir otherwise.
   */
  private async openStaging(tmp: string): Promise<FileHandle> {
    try {
      return await fsp.open(tmp, 'wx');
    } catch (err) {
      if (errCode(err) !== 'ENOENT') throw err;
    }
    await this.ensureRoot();
    return fsp.open(tmp, 'wx');
  }

  private async ensureRoot(): Promise<string> {
    // Always (re)created, cheaply, so the store recovers if someone removes the directory under us.
    await fsp.mkdir(this.staging, { recursive: true });
    this.realRoot ??= await fsp.realpath(this.root);
    return this.realRoot;
  }

  /** The real root, or undefined when the root does not exist yet (then no object exists either). */
  private async existingRealRoot(): Promise<string | undefined> {
    this.realRoot ??= (await realpathOrNull(this.root)) ?? undefined;
    return this.realRoot;
  }

  /** The real path of an existing key, checked to be under the root; null when missing. */
  private async resolveExisting(safeKey: string): Promise<string | null> {
    const target = this.pathFor(safeKey);
    const realRoot = await this.existingRealRoot();
    if (realRoot === undefined) return null;
    const real = await realpathOrNull(target);
    if (real === null) return null;
    this.assertWithinRoot(real, realRoot, safeKey);
    return real;
  }

  private async renameIntoPlace(
    tmp: string,
    target: string,
    key: string,
    realRoot: string,
    syncDir: boolean,
  ): Promise<void> {
    const dir = path.dirname(target);
    // A concurrent delete/deletePrefix may prune the (then empty) parent directory between our mkdir
    // and rename; recreate it and try again rather than fail the upload.
    for (let attempt = 1; ; attempt++) {
      await this.makeParentDirs(dir, key, realRoot);
      try {
        await fsp.rename(tmp, target);
        break;
      } catch (err) {
        const code = errCode(err);
        if (code === 'ENOENT' && attempt < 5) continue;
        if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR')
          throw keyConflict(key, err);
        throw err;
      }
    }
    // Persist the new directory entry, so a crash after put() resolves cannot lose the object
    // (or, for deferred puts, after persist() resolves).
    if (syncDir) await fsyncDir(dir);
  }

  private async makeParentDirs(dir: string, key: string, realRoot: string): Promise<void> {
    // Most puts go to a folder that exists (every file of a study after the first): one check.
    const existing = await realpathOrNull(dir);
    if (existing !== null) return this.assertWithinRoot(existing, realRoot, key);
    // mkdir -p follows symlinks in existing components, so check what exists before creating anything under it.
    this.assertWithinRoot(await realpathOfDeepestExisting(dir), realRoot, key);
    let firstCreated: string | undefined;
    try {
      firstCreated = await fsp.mkdir(dir, { recursive: true });
    } catch (err) {
      if (errCode(err) === 'ENOTDIR' || errCode(err) === 'EEXIST') throw keyConflict(key, err);
      throw err;
    }
    // Re-check after creating: a component could have been replaced by a symlink in between.
    this.assertWithinRoot(await fsp.realpath(dir), realRoot, key);
    if (firstCreated !== undefined) {
      // A new directory is only durable once its parent's entry for it is synced; do that top-down.
      const created: string[] = [];
      for (let d = dir; isInside(d, this.root); d = path.dirname(d)) {
        created.unshift(d);
        if (d === firstCreated) break;
      }
      for (const d of created) await fsyncDir(path.dirname(d));
    }
  }

  /** Removes empty directories from `dir` up to (not including) the root; stops at the first non-empty one. */
  private async pruneEmptyDirs(dir: string): Promise<void> {
    for (let d = dir; d !== this.root && isInside(d, this.root); d = path.dirname(d)) {
      try {
        await fsp.rmdir(d);
      } catch (err) {
        if (errCode(err) === 'ENOENT') continue;
        // ENOTEMPTY/EEXIST: still in use (maybe by a concurrent put), which is fine. ENOTDIR: a symlink; leave it.
        if (errCode(err) === 'ENOTEMPTY' || errCode(err) === 'EEXIST' || errCode(err) === 'ENOTDIR') return;
        throw err;
      }
    }
  }

  private async *walkPrefix(dir: string, safePrefix: string): AsyncGenerator<ObjectStat> {
    const realRoot = await this.existingRealRoot();
    if (realRoot === undefined) return;
    const realDir = await realpathOrNull(dir);
    if (realDir === null) return;
    this.assertWithinRoot(realDir, realRoot, safePrefix);
    // Compare real paths: a symlinked folder may lead back to the root, whose staging dir must stay hidden.
    yield* walk(realDir, safePrefix, realDir === realRoot);
  }
}

/**
 * Yields regular files under `dir` in key order. Each directory's entries are sorted with
 * directories compared as `name/`, which makes depth-first order equal to full-key order
 * (`a-b` sorts before `a/x`, because '-' < '/'). Symlinks and other non-regular files are skipped.
 */
async function* walk(dir: string, keyPrefix: string, isRoot: boolean): AsyncGenerator<ObjectStat> {
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (MISSING.has(errCode(err))) return; // removed while we were listing
    throw err;
  }
  const sorted = entries
    .filter((e) => (e.isDirectory() || e.isFile()) && !(isRoot && e.name === STAGING_DIR))
    .map((e) => ({ entry: e, sortKey: e.isDirectory() ? `${e.name}/` : e.name }))
    .sort((a, b) => compareKeys(a.sortKey, b.sortKey));
  for (const { entry } of sorted) {
    const full = path.join(dir, entry.name);
    const key = keyPrefix + entry.name;
    if (entry.isDirectory()) {
      yield* walk(full, `${key}/`, false);
      continue;
    }
    try {
      const st = await fsp.lstat(full);
      if (st.isFile()) yield { key, size: st.size, lastModified: st.mtime };
    } catch (err) {
      if (!MISSING.has(errCode(err))) throw err;
    }
  }
}

/** Deletes everything below `dir` (not `dir` itself) without following symlinks; returns the number of objects removed. */
async function removeTree(dir: string): Promise<number> {
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (MISSING.has(errCode(err))) return 0;
    throw err;
  }
  let removed = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += await removeTree(full);
      await fsp.rmdir(full).catch(ignoreCodes('ENOENT', 'ENOTEMPTY', 'EEXIST'));
    } else {
      try {
        await fsp.unlink(full);
        if (entry.isFile()) removed++;
      } catch (err) {
        if (!MISSING.has(errCode(err))) throw err;
      }
    }
  }
  return removed;
}

/** Bytes `start`–`end` (inclusive) of an open file; up to ONE_PIECE_MAX of them in one chunk. */
function readStream(fh: FileHandle, start: number, end: number): Readable {
  const length = end - start + 1;
  return fh.createReadStream({ start, end, ...(length <= ONE_PIECE_MAX ? { highWaterMark: length } : {}) });
}

/** Copies the body into the file chunk by chunk (each write awaited, so memory stays bounded). */
async function writeBody(
  fh: FileHandle,
  body: ObjectBody,
  expectedSize: number | undefined,
): Promise<number> {
  if (Buffer.isBuffer(body)) {
    checkSize(body.length, expectedSize, true);
    await fh.writeFile(body);
    return body.length;
  }
  if (isBodyParts(body)) {
    const size = body.reduce((n, part) => n + part.byteLength, 0);
    checkSize(size, expectedSize, true);
    await writevFully(fh, body);
    return size;
  }
  let written = 0;
  for await (const chunk of body as AsyncIterable<unknown>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (!(buf instanceof Uint8Array)) throw new TypeError('object body stream must yield bytes or strings');
    written += buf.byteLength;
    checkSize(written, expectedSize, false);
    await writeFully(fh, buf);
  }
  checkSize(written, expectedSize, true);
  return written;
}

/** Writes the parts in order with as few calls as the system allows (one, unless a write is short). */
async function writevFully(fh: FileHandle, parts: readonly Uint8Array[]): Promise<void> {
  const rest = parts.filter((p) => p.byteLength > 0);
  while (rest.length > 0) {
    let { bytesWritten } = await fh.writev(rest);
    if (bytesWritten === 0) throw new Error('the file system wrote nothing');
    while (rest.length > 0 && bytesWritten >= rest[0]!.byteLength) bytesWritten -= rest.shift()!.byteLength;
    if (bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
  }
}

async function writeFully(fh: FileHandle, buf: Uint8Array): Promise<void> {
  for (let offset = 0; offset < buf.byteLength;) {
    const { bytesWritten } = await fh.write(buf, offset, buf.byteLength - offset);
    offset += bytesWritten;
  }
}

function checkSize(actual: number, expected: number | undefined, final: boolean): void {
  if (expected === undefined) return;
  if (actual > expected || (final && actual !== expected))
    throw new Error(`object body is ${final ? '' : 'at least '}${actual} bytes, expected ${expected}`);
}

/**
 * Stops a stream body we will not finish reading, so its producer (e.g. an HTTP upload) is released.
 * Without an error argument: the caller learns of the failure from our rejection, and an 'error'
 * event nobody listens for would crash the process.
 */
function destroyBody(body: ObjectBody): void {
  if (!Buffer.isBuffer(body) && !isBodyParts(body) && !body.destroyed) body.destroy();
}

function keyConflict(key: string, cause: unknown): InvalidKeyError {
  return new InvalidKeyError(
    `object key conflicts with an existing object or folder (the file store cannot hold both "a/b" and "a/b/c"): ${key}`,
    { cause },
  );
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await fsp.open(dir, 'r');
  try {
    await fh.sync();
  } catch (err) {
    // Some filesystems cannot fsync directories; the rename itself is still atomic there.
    if (errCode(err) !== 'EINVAL' && errCode(err) !== 'ENOTSUP' && errCode(err) !== 'EISDIR') throw err;
  } finally {
    await fh.close();
  }
}

async function isDirectory(p: string): Promise<boolean> {
  const st = await fsp.lstat(p).catch(() => null);
  return st?.isDirectory() ?? false;
}

async function realpathOrNull(p: string): Promise<string | null> {
  try {
    return await fsp.realpath(p);
  } catch (err) {
    if (MISSING.has(errCode(err))) return null;
    throw err;
  }
}

/** realpath of `p`, or of its nearest existing ancestor. */
async function realpathOfDeepestExisting(p: string): Promise<string> {
  for (let current = p; ; current = path.dirname(current)) {
    const real = await realpathOrNull(current);
    if (real !== null) return real;
    if (path.dirname(current) === current) throw new Error(`no existing ancestor of ${p}`);
  }
}

/** True when `child` is strictly below `parent` (both absolute). */
function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel);
}

function errCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : '';
}

function ignoreCodes(...codes: string[]): (err: unknown) => void {
  return (err) => {
    if (!codes.includes(errCode(err))) throw err;
  };
}
