import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ObjectStorage } from '../../ports/storage/storage';
import { openInstance, type InstanceLocation } from '../../dicom-archive/instance-location';
import { zipEndRecords } from '../../dicom-archive/zip-writer';

/** One file of the archive: its bytes are a stored instance, whose size and CRC-32 are known up front. */
export interface ZipItem {
  name: string;
  size: number;
  crc32: number;
  location: InstanceLocation;
}

type Segment =
  | { start: number; length: number; kind: 'bytes'; make: () => Buffer }
  | { start: number; length: number; kind: 'object'; location: InstanceLocation };

type SegmentWithoutStart = Segment extends infer S ? (S extends Segment ? Omit<S, 'start'> : never) : never;

const MAX32 = 0xffffffff;
// Fixed timestamp (1980-01-01 00:00, the DOS epoch) so the same study always gives the same bytes.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/**
 * A store-mode ZIP laid out before any byte is sent: every offset, the total length and an ETag
 * follow from the names, sizes and CRCs alone, so any byte range can be served by seeking into the
 * right objects. ZIP64 records are used where a size, an offset or the entry count needs them.
 */
export class ZipLayout {
  readonly segments: Segment[] = [];
  readonly length: number;
  readonly etag: string;

  constructor(items: ZipItem[]) {
    const hash = createHash('sha256');
    let offset = 0;
    const central: Array<{ item: ZipItem; name: Buffer; offset: number }> = [];
    for (const item of items) {
      const name = Buffer.from(item.name, 'utf8');
      const header = localHeader(item, name);
      this.push({ kind: 'bytes', length: header.length, make: () => header });
      central.push({ item, name, offset });
      offset += header.length;
      if (item.size > 0) this.push({ kind: 'object', length: item.size, location: item.location });
      offset += item.size;
      hash.update(`${item.name}\0${item.size}\0${item.crc32}\n`);
    }
    const cdStart = offset;
    for (const c of central) {
      const len = centralHeaderLength(c.item, c.name, c.offset);
      this.push({ kind: 'bytes', length: len, make: () => centralHeader(c.item, c.name, c.offset) });
      offset += len;
    }
    const end = zipEndRecords(central.length, cdStart, offset - cdStart);
    this.push({ kind: 'bytes', length: end.length, make: () => end });
    offset += end.length;
    this.length = offset;
    this.etag = `"${hash.digest('hex').slice(0, 32)}-${offset}"`;
  }

  private cursor = 0;
  private push(seg: SegmentWithoutStart) {
    this.segments.push({ ...seg, start: this.cursor });
    this.cursor += seg.length;
  }

  /** The bytes `start`..`end` (inclusive) as a stream, read object by object. */
  stream(storage: ObjectStorage, start = 0, end = this.length - 1): Readable {
    const segments = this.segments;
    async function* generate(): AsyncGenerator<Buffer> {
      // Binary search for the first segment that holds `start`.
      let lo = 0;
      let hi = segments.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (segments[mid]!.start <= start) lo = mid;
        else hi = mid - 1;
      }
      for (let i = lo; i < segments.length; i++) {
        const seg = segments[i]!;
        if (seg.start > end) break;
        if (seg.length === 0) continue;
        const from = Math.max(start, seg.start) - seg.start;
        const to = Math.min(end, seg.start + seg.length - 1) - seg.start;
        if (seg.kind === 'bytes') {
          yield seg.make().subarray(from, to + 1);
        } else {
          const body = await openInstance(storage, seg.location, { start: from, end: to });
          let got = 0;
          for await (const chunk of body as AsyncIterable<Buffer>) {
            got += chunk.length;
            yield chunk;
          }
          // A stored object shorter than indexed would shift every later byte: fail loudly instead.
          if (got !== to - from + 1)
            throw new Error(`stored object ${seg.location.storageKey} is shorter than indexed`);
        }
      }
    }
    return Readable.from(generate(), { objectMode: false });
  }
}

function needsZip64(item: ZipItem): boolean {
  return item.size >= MAX32;
}

function localHeader(item: ZipItem, name: Buffer): Buffer {
  const zip64 = needsZip64(item);
  const extraLen = zip64 ? 20 : 0;
  const b = Buffer.alloc(30 + name.length + extraLen);
  b.writeUInt32LE(0x04034b50, 0);
  b.writeUInt16LE(zip64 ? 45 : 20, 4);
  b.writeUInt16LE(name.some((c) => c > 0x7f) ? 0x0800 : 0, 6);
  b.writeUInt16LE(0, 8); // stored
  b.writeUInt16LE(DOS_TIME, 10);
  b.writeUInt16LE(DOS_DATE, 12);
  b.writeUInt32LE(item.crc32 >>> 0, 14);
  b.writeUInt32LE(zip64 ? MAX32 : item.size, 18);
  b.writeUInt32LE(zip64 ? MAX32 : item.size, 22);
  b.writeUInt16LE(name.length, 26);
  b.writeUInt16LE(extraLen, 28);
  name.copy(b, 30);
  if (zip64) {
    const x = 30 + name.length;
    b.writeUInt16LE(0x0001, x);
    b.writeUInt16LE(16, x + 2);
    b.writeBigUInt64LE(BigInt(item.size), x + 4);
    b.writeBigUInt64LE(BigInt(item.size), x + 12);
  }
  return b;
}

function zip64Fields(item: ZipItem, offset: number): bigint[] {
  const fields: bigint[] = [];
  if (item.size >= MAX32) fields.push(BigInt(item.size), BigInt(item.size));
  if (offset >= MAX32) fields.push(BigInt(offset));
  return fields;
}

function centralHeaderLength(item: ZipItem, name: Buffer, offset: number): number {
  const n = zip64Fields(item, offset).length;
  return 46 + name.length + (n > 0 ? 4 + n * 8 : 0);
}

function centralHeader(item: ZipItem, name: Buffer, offset: number): Buffer {
  const fields = zip64Fields(item, offset);
  const extraLen = fields.length > 0 ? 4 + fields.length * 8 : 0;
  const zip64 = fields.length > 0;
  const b = Buffer.alloc(46 + name.length + extraLen);
  b.writeUInt32LE(0x02014b50, 0);
  b.writeUInt16LE(45, 4); // made by: spec version 4.5
  b.writeUInt16LE(zip64 ? 45 : 20, 6);
  b.writeUInt16LE(name.some((c) => c > 0x7f) ? 0x0800 : 0, 8);
  b.writeUInt16LE(0, 10);
  b.writeUInt16LE(DOS_TIME, 12);
  b.writeUInt16LE(DOS_DATE, 14);
  b.writeUInt32LE(item.crc32 >>> 0, 16);
  b.writeUInt32LE(item.size >= MAX32 ? MAX32 : item.size, 20);
  b.writeUInt32LE(item.size >= MAX32 ? MAX32 : item.size, 24);
  b.writeUInt16LE(name.length, 28);
  b.writeUInt16LE(extraLen, 30);
  b.writeUInt16LE(0, 32); // comment
  b.writeUInt16LE(0, 34); // disk
  b.writeUInt16LE(0, 36); // internal attributes
  b.writeUInt32LE(0, 38); // external attributes
  b.writeUInt32LE(offset >= MAX32 ? MAX32 : offset, 42);
  name.copy(b, 46);
  if (zip64) {
    let x = 46 + name.length;
    b.writeUInt16LE(0x0001, x);
    b.writeUInt16LE(fields.length * 8, x + 2);
    x += 4;
    for (const f of fields) {
      b.writeBigUInt64LE(f, x);
      x += 8;
    }
  }
  return b;
}

/** Parses a single `Range: bytes=…` header against a length. Null means "serve the whole thing". */
export function parseRange(
  header: string | undefined,
  length: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, length - suffix), end: length - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? length - 1 : Math.min(Number(m[2]), length - 1);
  if (start >= length || end < start) return 'unsatisfiable';
  return { start, end };
}
