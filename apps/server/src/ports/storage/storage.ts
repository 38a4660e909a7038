import type { Readable } from 'node:stream';

/** What the store knows about one object. */
export interface ObjectStat {
  key: string;
  size: number;
  lastModified: Date;
}

/** Byte range of a read. `end` is inclusive, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface PutOptions {
  contentType?: string;
  /** Expected length in bytes. When given, a body of any other length fails the put and stores nothing. */
  size?: number;
  /**
   * For many puts in a row: the object is complete and readable when put() resolves, but it is only
   * guaranteed to survive a crash once `persist` has been called for its key. Lets a batch share one
   * directory sync instead of one per object. Ignored where every put is durable anyway (S3).
   */
  deferDurability?: boolean;
}

/**
 * What `put` stores: a stream, the bytes in one buffer, or the bytes as parts in order (a new header
 * and a view into another buffer, say), which are written one after the other and never joined.
 */
export type ObjectBody = Readable | Buffer | readonly Uint8Array[];

/** A body given as parts (`Array.isArray` does not narrow a readonly array). */
export function isBodyParts(body: ObjectBody): body is readonly Uint8Array[] {
  return Array.isArray(body);
}

/**
 * Where study files live: a directory on local disk, or an S3 bucket.
 *
 * Keys are `/`-separated relative paths (`studies/<id>/<sop>.dcm`) checked by `assertSafeKey`.
 * Prefixes passed to `list` / `deletePrefix` name a folder: `a/b` and `a/b/` both mean "every key
 * that starts with `a/b/`", so `a/bc/…` is never included.
 */
export interface ObjectStorage {
  readonly kind: 'fs' | 's3';
  /**
   * Stores `body` under `key`, replacing any existing object atomically: readers see the old object
   * or the complete new one, never a partial one. Streams are written as they arrive, not buffered
   * whole. A stream body is consumed, and destroyed if the put fails. Parts must not change until
   * the put resolves.
   */
  put(key: string, body: ObjectBody, opts?: PutOptions): Promise<ObjectStat>;
  /**
   * Streams an object, or a byte range of it (an `end` past the last byte is clamped).
   * Throws ObjectNotFoundError when the key is missing and RangeNotSatisfiableError when
   * `range.start` is at or beyond the object's size.
   */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * Makes the finished local file at `sourcePath` the object `key` without copying its bytes (a hard
   * link, made durable before it resolves), replacing any object there. The file must not change
   * afterwards. Only stores on the same local filesystem can do this: undefined on others, and a null
   * result when this file cannot be linked (another filesystem); the caller then copies instead.
   */
  adoptFile?(sourcePath: string, key: string): Promise<ObjectStat | null>;
  /** Local files only: removes temp files older than `maxAgeMs` that a crash mid-write left behind. */
  sweepStaging?(maxAgeMs?: number): Promise<number>;
  /** Makes objects put with `deferDurability` survive a crash; cheap for keys that share a folder. */
  persist(keys: readonly string[]): Promise<void>;
  /** Null when the key is missing. */
  stat(key: string): Promise<ObjectStat | null>;
  /** Idempotent: deleting a missing key is fine. */
  delete(key: string): Promise<void>;
  /**
   * Deletes these keys (idempotent, like `delete`), in as few requests as the backend allows. Every key
   * is validated before anything is deleted. On failure some keys may be gone and others not; repeating
   * the call finishes the job.
   */
  deleteMany(keys: readonly string[]): Promise<void>;
  /** Deletes every object under the folder `prefix` and returns how many. Refuses the empty prefix. */
  deletePrefix(prefix: string): Promise<number>;
  /** Every object under the folder `prefix` ('' for all), sorted by key in UTF-8 byte order. */
  list(prefix: string): AsyncIterable<ObjectStat>;
  /** For the health check: throws when the storage cannot be used. */
  check(): Promise<void>;
}

/** The key (or prefix) could address something outside the store; rejected before any I/O. */
export class InvalidKeyError extends Error {
  override readonly name = 'InvalidKeyError';
}

export class ObjectNotFoundError extends Error {
  override readonly name = 'ObjectNotFoundError';
  constructor(readonly key: string) {
    super(`object not found: ${key}`);
  }
}

/** The requested range starts at or beyond the end of the object (HTTP 416). */
export class RangeNotSatisfiableError extends Error {
  override readonly name = 'RangeNotSatisfiableError';
  constructor(
    readonly key: string,
    readonly range: ByteRange,
    /** The object's size when known. */
    readonly size?: number,
  ) {
    super(
      `range ${range.start}-${range.end ?? ''} not satisfiable for ${key}${size === undefined ? '' : ` (${size} bytes)`}`,
    );
  }
}

/** S3's limit on key length, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

// C0 controls, DEL and C1 controls: NUL truncates paths in C APIs, the rest corrupt logs and headers.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// With the `u` flag a well-formed surrogate pair is one code point, so this only finds lone halves,
// which have no UTF-8 encoding (S3 rejects them and file names would be mangled).
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Validates an object key and returns it in Unicode NFC, so `é` typed on macOS (NFD) and on Linux
 * (NFC) name the same object on every backend. Rejects anything that could resolve outside the
 * store or mean different things on different backends: empty keys, absolute paths, backslashes,
 * empty / `.` / `..` segments, control characters, and keys over 1024 UTF-8 bytes.
 */
export function assertSafeKey(key: string): string {
  if (typeof key !== 'string' || key.length === 0)
    throw new InvalidKeyError('object key must be a non-empty string');
  // Checked before normalising so a NUL can never be smuggled past by a normalisation step.
  if (CONTROL_CHARS.test(key)) throw new InvalidKeyError('object key must not contain control characters');
  if (LONE_SURROGATE.test(key)) throw new InvalidKeyError('object key must be well-formed Unicode');
  const normalized = key.normalize('NFC');
  if (Buffer.byteLength(normalized, 'utf8') > MAX_KEY_BYTES)
    throw new InvalidKeyError(`object key must be at most ${MAX_KEY_BYTES} bytes`);
  if (normalized.includes('\\')) throw new InvalidKeyError('object key must not contain backslashes');
  if (normalized.startsWith('/')) throw new InvalidKeyError('object key must be relative (no leading "/")');
  for (const segment of normalized.split('/')) {
    if (segment === '')
      throw new InvalidKeyError('object key must not contain empty segments ("//" or a trailing "/")');
    if (segment === '.' || segment === '..')
      throw new InvalidKeyError('object key must not contain "." or ".." segments');
  }
  return normalized;
}

/**
 * Validates a folder prefix for `list` / `deletePrefix`: '' (everything) or a safe key, returned with
 * exactly one trailing '/'. The slash is what keeps `a/b` from matching `a/bc`.
 */
export function normalizePrefix(prefix: string): string {
  if (prefix === '') return '';
  if (typeof prefix !== 'string') throw new InvalidKeyError('prefix must be a string');
  return `${assertSafeKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix)}/`;
}

/** Validates a range before any I/O; a malformed range is a programming error, not a 416. */
export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0)
    throw new RangeError(`range start must be a non-negative integer, got ${start}`);
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start))
    throw new RangeError(`range end must be an integer >= start, got ${end}`);
}

/** Sort by code point, which is UTF-8 byte order: the order S3 lists keys in. */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// UTF-16 code units sort like code points except that surrogates (U+D800–DFFF, which encode
// U+10000 and up) must come after U+E000–FFFF; shift the two blocks past each other.
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
