import { crc32 } from '@node-rs/crc32';

/**
 * One file of a ZIP we write (Export my data, modules/exports; de-identified downloads,
 * modules/deidentify). Its size and CRC-32 are known before its bytes are written (a stored
 * instance's come from its index row, a generated file is in memory), so every local header is
 * complete and readers that walk the archive from the front (our own upload scanner,
 * dicom-archive/zip-stream-scanner.ts) need no data descriptor.
 */
export type ZipEntry =
  | { name: string; data: Buffer }
  | { name: string; size: number; crc32: number; open: () => Promise<AsyncIterable<Buffer | Uint8Array>> };

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;

/** A ZIP entry's MS-DOS date and time fields (UTC; the format cannot hold dates before 1980). */
export function dosDateTime(at: Date): { date: number; time: number } {
  const year = Math.max(1980, at.getUTCFullYear());
  return {
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | (at.getUTCSeconds() >> 1),
  };
}

/** What a central directory record says about one entry written at `offset`. */
export interface WrittenEntry {
  name: Buffer;
  size: number;
  crc: number;
  offset: number;
}

/**
 * Writes a store-mode ZIP (no compression: DICOM pixel data rarely shrinks, and a CD burner or an
 * import station reads stored entries fastest) as a stream of chunks, one entry after another.
 * Memory holds one chunk and the central directory (about 100 bytes an entry). ZIP64 records are
 * used where a size, an offset or the entry count needs them. A stored entry whose bytes do not
 * match its declared size or CRC fails the whole archive rather than shipping a corrupt file.
 */
export async function* zipStream(
  entries: AsyncIterable<ZipEntry>,
  opts: { at: Date; onBytes?: (n: number) => void },
): AsyncGenerator<Buffer> {
  const { date, time } = dosDateTime(opts.at);
  const written: WrittenEntry[] = [];
  let offset = 0;
  for await (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const size = 'data' in entry ? entry.data.length : entry.size;
    const crc = ('data' in entry ? crc32(entry.data) : entry.crc32) >>> 0;
    const header = localHeader(name, size, crc, date, time);
    written.push({ name, size, crc, offset });
    yield header;
    offset += header.length;
    if ('data' in entry) {
      if (entry.data.length) yield entry.data;
      opts.onBytes?.(entry.data.length);
    } else {
      let got = 0;
      let check = 0;
      for await (const raw of await entry.open()) {
        const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
        got += chunk.length;
        if (got > size) throw new Error(`${entry.name}: more bytes than its declared ${size}`);
        check = crc32(chunk, check);
        yield chunk;
        opts.onBytes?.(chunk.length);
      }
      if (got !== size) throw new Error(`${entry.name}: ${got} bytes, ${size} declared`);
      if (check >>> 0 !== crc) throw new Error(`${entry.name}: CRC-32 does not match its index`);
    }
    offset += size;
  }
  const cdStart = offset;
  for (const w of written) {
    const header = centralHeader(w, date, time);
    yield header;
    offset += header.length;
  }
  yield zipEndRecords(written.length, cdStart, offset - cdStart);
}

function flags(name: Buffer): number {
  // Bit 11: the name is UTF-8.
  return name.some((c) => c > 0x7f) ? 0x0800 : 0;
}

/** An entry's local file header (store mode; ZIP64 extra field when the size needs it). */
export function localHeader(name: Buffer, size: number, crc: number, date: number, time: number): Buffer {
  const zip64 = size >= MAX32;
  const extraLen = zip64 ? 20 : 0;
  const b = Buffer.alloc(30 + name.length + extraLen);
  b.writeUInt32LE(0x04034b50, 0);
  b.writeUInt16LE(zip64 ? 45 : 20, 4);
  b.writeUInt16LE(flags(name), 6);
  b.writeUInt16LE(0, 8); // stored
  b.writeUInt16LE(time, 10);
  b.writeUInt16LE(date, 12);
  b.writeUInt32LE(crc, 14);
  b.writeUInt32LE(zip64 ? MAX32 : size, 18);
  b.writeUInt32LE(zip64 ? MAX32 : size, 22);
  b.writeUInt16LE(name.length, 26);
  b.writeUInt16LE(extraLen, 28);
  name.copy(b, 30);
  if (zip64) {
    const x = 30 + name.length;
    b.writeUInt16LE(0x0001, x);
    b.writeUInt16LE(16, x + 2);
    b.writeBigUInt64LE(BigInt(size), x + 4);
    b.writeBigUInt64LE(BigInt(size), x + 12);
  }
  return b;
}

function zip64Fields(w: WrittenEntry): bigint[] {
  const fields: bigint[] = [];
  if (w.size >= MAX32) fields.push(BigInt(w.size), BigInt(w.size));
  if (w.offset >= MAX32) fields.push(BigInt(w.offset));
  return fields;
}

/** The length of `centralHeader(w, …)`, known without building it (a ZIP laid out up front). */
export function centralHeaderLength(w: WrittenEntry): number {
  const n = zip64Fields(w).length;
  return 46 + w.name.length + (n > 0 ? 4 + n * 8 : 0);
}

/** An entry's central directory record, with the ZIP64 extra field where a size or offset needs it. */
export function centralHeader(w: WrittenEntry, date: number, time: number): Buffer {
  const fields = zip64Fields(w);
  const zip64 = fields.length > 0;
  const extraLen = zip64 ? 4 + fields.length * 8 : 0;
  const b = Buffer.alloc(46 + w.name.length + extraLen);
  b.writeUInt32LE(0x02014b50, 0);
  b.writeUInt16LE((3 << 8) | 45, 4); // made by: Unix, spec 4.5 (so the file mode below is read)
  b.writeUInt16LE(zip64 ? 45 : 20, 6);
  b.writeUInt16LE(flags(w.name), 8);
  b.writeUInt16LE(0, 10);
  b.writeUInt16LE(time, 12);
  b.writeUInt16LE(date, 14);
  b.writeUInt32LE(w.crc, 16);
  b.writeUInt32LE(w.size >= MAX32 ? MAX32 : w.size, 20);
  b.writeUInt32LE(w.size >= MAX32 ? MAX32 : w.size, 24);
  b.writeUInt16LE(w.name.length, 28);
  b.writeUInt16LE(extraLen, 30);
  b.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
  b.writeUInt32LE(w.offset >= MAX32 ? MAX32 : w.offset, 42);
  w.name.copy(b, 46);
  if (zip64) {
    let x = 46 + w.name.length;
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

/** The end of central directory record, with the ZIP64 record and locator when a value needs them. */
export function zipEndRecords(count: number, cdStart: number, cdSize: number): Buffer {
  const zip64 = count >= MAX16 || cdStart >= MAX32 || cdSize >= MAX32;
  const parts: Buffer[] = [];
  if (zip64) {
    const rec = Buffer.alloc(56);
    rec.writeUInt32LE(0x06064b50, 0);
    rec.writeBigUInt64LE(44n, 4);
    rec.writeUInt16LE(45, 12);
    rec.writeUInt16LE(45, 14);
    rec.writeBigUInt64LE(BigInt(count), 24);
    rec.writeBigUInt64LE(BigInt(count), 32);
    rec.writeBigUInt64LE(BigInt(cdSize), 40);
    rec.writeBigUInt64LE(BigInt(cdStart), 48);
    const loc = Buffer.alloc(20);
    loc.writeUInt32LE(0x07064b50, 0);
    loc.writeBigUInt64LE(BigInt(cdStart + cdSize), 8);
    loc.writeUInt32LE(1, 16);
    parts.push(rec, loc);
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(zip64 ? MAX16 : count, 8);
  eocd.writeUInt16LE(zip64 ? MAX16 : count, 10);
  eocd.writeUInt32LE(zip64 ? MAX32 : cdSize, 12);
  eocd.writeUInt32LE(zip64 ? MAX32 : cdStart, 16);
  parts.push(eocd);
  return Buffer.concat(parts);
}
