import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ObjectStorage } from '../../ports/storage/storage';
import { openInstance, type InstanceLocation } from '../../dicom-archive/instance-location';
import {
  centralHeader,
  centralHeaderLength,
  dosDateTime,
  localHeader,
  zipEndRecords,
  type WrittenEntry,
} from '../../dicom-archive/zip-writer';

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

// Fixed timestamp (1980-01-01 00:00, the DOS epoch) so the same study always gives the same bytes.
const { date: DOS_DATE, time: DOS_TIME } = dosDateTime(new Date(Date.UTC(1980, 0, 1)));

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
    const central: WrittenEntry[] = [];
    for (const item of items) {
      const name = Buffer.from(item.name, 'utf8');
      const header = localHeader(name, item.size, item.crc32 >>> 0, DOS_DATE, DOS_TIME);
      this.push({ kind: 'bytes', length: header.length, make: () => header });
      central.push({ name, size: item.size, crc: item.crc32 >>> 0, offset });
      offset += header.length;
      if (item.size > 0) this.push({ kind: 'object', length: item.size, location: item.location });
      offset += item.size;
      hash.update(`${item.name}\0${item.size}\0${item.crc32}\n`);
    }
    const cdStart = offset;
    for (const c of central) {
      const len = centralHeaderLength(c);
      this.push({ kind: 'bytes', length: len, make: () => centralHeader(c, DOS_DATE, DOS_TIME) });
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
