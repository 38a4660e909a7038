import CRC32 from 'crc-32';

/**
 * A store-mode (uncompressed) ZIP built as a Blob whose parts are small header arrays and the
 * selected files themselves, so the browser never copies the selection into memory and tus can
 * slice the archive like any file. Entries are sorted and stamped 1980-01-01 00:00 (the DOS epoch),
 * so the same selection always gives the same bytes and an interrupted upload can resume.
 * ZIP64 records are written when sizes, offsets or the entry count need them (DVDs exceed 4 GiB).
 */

export interface ZipSource {
  /** Path inside the archive; separators may be '/' or '\'. */
  path: string;
  file: Blob;
}

export interface ZipEntry {
  path: string;
  file: Blob;
  /** CRC-32 of the file's bytes, unsigned. */
  crc: number;
}

export interface StoreZip {
  blob: Blob;
  /** Names, sizes and CRCs of every entry: identifies the archive's content. */
  centralDirectory: Uint8Array<ArrayBuffer>;
}

const MAX_U16 = 0xffff;
const MAX_U32 = 0xffffffff;
const FLAG_UTF8 = 0x0800;
const DOS_TIME = 0;
const DOS_DATE = (1 << 5) | 1; // 1980-01-01
const VERSION_DEFAULT = 20;
const VERSION_ZIP64 = 45;

const utf8 = new TextEncoder();

/** Drops empty, '.' and '..' segments so no entry can point outside the archive's root. */
export function normalizeEntryPath(path: string): string {
  const segments = path
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.' && s !== '..');
  return segments.join('/') || 'file';
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Normalised, sorted by path (code-unit order, independent of locale), duplicates renamed with a
 * ' (n)' suffix: the fixed order that makes the archive deterministic.
 */
export function orderSources(sources: readonly ZipSource[]): ZipSource[] {
  const sorted = sources
    .map((s) => ({ path: normalizeEntryPath(s.path), file: s.file }))
    .sort((a, b) => compareCodeUnits(a.path, b.path) || a.file.size - b.file.size);
  const used = new Set<string>();
  return sorted.map((s) => {
    let path = s.path;
    for (let n = 2; used.has(path); n++) path = `${s.path} (${n})`;
    used.add(path);
    return { path, file: s.file };
  });
}

function abortError(): DOMException {
  return new DOMException('The operation was aborted.', 'AbortError');
}

/** CRC-32 of a Blob, read as a stream so memory stays flat; `onBytes` reports each chunk read. */
export async function crc32OfBlob(
  blob: Blob,
  onBytes?: (bytes: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  const reader = blob.stream().getReader();
  let crc = 0;
  try {
    for (;;) {
      if (signal?.aborted) throw abortError();
      const { done, value } = await reader.read();
      if (done) break;
      crc = CRC32.buf(value, crc);
      onBytes?.(value.byteLength);
    }
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err;
  }
  return crc >>> 0;
}

export function localHeader(name: Uint8Array, size: number, crc: number): Uint8Array<ArrayBuffer> {
  const zip64 = size >= MAX_U32;
  const extraLength = zip64 ? 20 : 0;
  const out = new Uint8Array(30 + name.length + extraLength);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x04034b50, true);
  v.setUint16(4, zip64 ? VERSION_ZIP64 : VERSION_DEFAULT, true);
  v.setUint16(6, FLAG_UTF8, true);
  v.setUint16(8, 0, true); // stored
  v.setUint16(10, DOS_TIME, true);
  v.setUint16(12, DOS_DATE, true);
  v.setUint32(14, crc, true);
  v.setUint32(18, zip64 ? MAX_U32 : size, true);
  v.setUint32(22, zip64 ? MAX_U32 : size, true);
  v.setUint16(26, name.length, true);
  v.setUint16(28, extraLength, true);
  out.set(name, 30);
  if (zip64) {
    const at = 30 + name.length;
    v.setUint16(at, 0x0001, true);
    v.setUint16(at + 2, 16, true);
    v.setBigUint64(at + 4, BigInt(size), true);
    v.setBigUint64(at + 12, BigInt(size), true);
  }
  return out;
}

export function centralHeader(
  name: Uint8Array,
  size: number,
  crc: number,
  offset: number,
): Uint8Array<ArrayBuffer> {
  const bigSize = size >= MAX_U32;
  const bigOffset = offset >= MAX_U32;
  const zip64Fields = (bigSize ? 2 : 0) + (bigOffset ? 1 : 0);
  const extraLength = zip64Fields ? 4 + 8 * zip64Fields : 0;
  const out = new Uint8Array(46 + name.length + extraLength);
  const v = new DataView(out.buffer);
  const version = zip64Fields ? VERSION_ZIP64 : VERSION_DEFAULT;
  v.setUint32(0, 0x02014b50, true);
  v.setUint16(4, version, true);
  v.setUint16(6, version, true);
  v.setUint16(8, FLAG_UTF8, true);
  v.setUint16(10, 0, true);
  v.setUint16(12, DOS_TIME, true);
  v.setUint16(14, DOS_DATE, true);
  v.setUint32(16, crc, true);
  v.setUint32(20, bigSize ? MAX_U32 : size, true);
  v.setUint32(24, bigSize ? MAX_U32 : size, true);
  v.setUint16(28, name.length, true);
  v.setUint16(30, extraLength, true);
  // comment length, disk number, internal and external attributes stay 0
  v.setUint32(42, bigOffset ? MAX_U32 : offset, true);
  out.set(name, 46);
  if (zip64Fields) {
    let at = 46 + name.length;
    v.setUint16(at, 0x0001, true);
    v.setUint16(at + 2, 8 * zip64Fields, true);
    at += 4;
    if (bigSize) {
      v.setBigUint64(at, BigInt(size), true);
      v.setBigUint64(at + 8, BigInt(size), true);
      at += 16;
    }
    if (bigOffset) v.setBigUint64(at, BigInt(offset), true);
  }
  return out;
}

function endRecords(
  count: number,
  cdSize: number,
  cdOffset: number,
  forceZip64: boolean,
): Uint8Array<ArrayBuffer> {
  const zip64 = forceZip64 || count >= MAX_U16 || cdSize >= MAX_U32 || cdOffset >= MAX_U32;
  const out = new Uint8Array((zip64 ? 56 + 20 : 0) + 22);
  const v = new DataView(out.buffer);
  let at = 0;
  if (zip64) {
    v.setUint32(0, 0x06064b50, true);
    v.setBigUint64(4, 44n, true);
    v.setUint16(12, VERSION_ZIP64, true);
    v.setUint16(14, VERSION_ZIP64, true);
    // this disk and the central directory's disk are both 0
    v.setBigUint64(24, BigInt(count), true);
    v.setBigUint64(32, BigInt(count), true);
    v.setBigUint64(40, BigInt(cdSize), true);
    v.setBigUint64(48, BigInt(cdOffset), true);
    v.setUint32(56, 0x07064b50, true);
    v.setBigUint64(64, BigInt(cdOffset + cdSize), true);
    v.setUint32(72, 1, true);
    at = 76;
  }
  v.setUint32(at, 0x06054b50, true);
  v.setUint16(at + 8, zip64 ? MAX_U16 : count, true);
  v.setUint16(at + 10, zip64 ? MAX_U16 : count, true);
  v.setUint32(at + 12, zip64 ? MAX_U32 : cdSize, true);
  v.setUint32(at + 16, zip64 ? MAX_U32 : cdOffset, true);
  return out;
}

/** Lays the entries out, in the order given, as one store-mode archive. */
export function buildStoreZip(
  entries: readonly ZipEntry[],
  options: { forceZip64?: boolean } = {},
): StoreZip {
  const parts: BlobPart[] = [];
  const central: Uint8Array<ArrayBuffer>[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = utf8.encode(entry.path);
    const header = localHeader(name, entry.file.size, entry.crc);
    central.push(centralHeader(name, entry.file.size, entry.crc, offset));
    parts.push(header, entry.file);
    offset += header.length + entry.file.size;
  }
  const cdSize = central.reduce((sum, h) => sum + h.length, 0);
  const centralDirectory = new Uint8Array(cdSize);
  let at = 0;
  for (const h of central) {
    centralDirectory.set(h, at);
    at += h.length;
  }
  parts.push(centralDirectory, endRecords(entries.length, cdSize, offset, options.forceZip64 ?? false));
  return { blob: new Blob(parts, { type: 'application/zip' }), centralDirectory };
}

/**
 * Reads every file once for its CRC (the 'Analyzing...' phase; `onProgress` gets 0..1), then
 * builds the archive.
 */
export async function archiveSources(
  sources: readonly ZipSource[],
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<StoreZip> {
  const ordered = orderSources(sources);
  const total = ordered.reduce((sum, s) => sum + s.file.size, 0);
  let done = 0;
  const entries: ZipEntry[] = [];
  onProgress(0);
  for (const source of ordered) {
    const crc = await crc32OfBlob(
      source.file,
      (bytes) => {
        done += bytes;
        onProgress(total === 0 ? 1 : done / total);
      },
      signal,
    );
    entries.push({ ...source, crc });
  }
  onProgress(1);
  return buildStoreZip(entries);
}
