import { Readable } from 'node:stream';
import { crcOf } from '../../dicom-archive/zip-reader';

/** One file of a streamed archive, made when its turn comes. */
export interface StreamedEntry {
  name: string;
  bytes: () => Promise<Buffer | null>;
}

// 1980-01-01 00:00, as the studies module's archives (download-zip.ts).
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/**
 * A store-mode ZIP written as its files are made: de-identified files have no size or CRC before
 * they exist, so each entry's sizes follow its data in a data descriptor (APPNOTE 4.3.9) and only
 * one file is in memory at a time. ZIP64 records are written when the archive passes 4 GiB.
 */
export function streamZip(entries: AsyncIterable<StreamedEntry> | Iterable<StreamedEntry>): Readable {
  async function* generate(): AsyncGenerator<Buffer> {
    const central: Buffer[] = [];
    let offset = 0;
    let count = 0;
    for await (const entry of entries) {
      const data = await entry.bytes();
      if (!data) continue;
      const name = Buffer.from(entry.name, 'utf8');
      const crc = crcOf(data) >>> 0;
      const flags = 0x0008 | (name.some((c) => c > 0x7f) ? 0x0800 : 0);
      const local = Buffer.alloc(30 + name.length);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(flags, 6);
      local.writeUInt16LE(0, 8);
      local.writeUInt16LE(DOS_TIME, 10);
      local.writeUInt16LE(DOS_DATE, 12);
      local.writeUInt16LE(name.length, 26);
      name.copy(local, 30);
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(data.length, 8);
      descriptor.writeUInt32LE(data.length, 12);
      const zip64 = offset >= 0xffffffff;
      const extra = zip64 ? Buffer.alloc(12) : Buffer.alloc(0);
      if (zip64) {
        extra.writeUInt16LE(0x0001, 0);
        extra.writeUInt16LE(8, 2);
        extra.writeBigUInt64LE(BigInt(offset), 4);
      }
      const c = Buffer.alloc(46 + name.length + extra.length);
      c.writeUInt32LE(0x02014b50, 0);
      c.writeUInt16LE(45, 4);
      c.writeUInt16LE(zip64 ? 45 : 20, 6);
      c.writeUInt16LE(flags, 8);
      c.writeUInt16LE(0, 10);
      c.writeUInt16LE(DOS_TIME, 12);
      c.writeUInt16LE(DOS_DATE, 14);
      c.writeUInt32LE(crc, 16);
      c.writeUInt32LE(data.length, 20);
      c.writeUInt32LE(data.length, 24);
      c.writeUInt16LE(name.length, 28);
      c.writeUInt16LE(extra.length, 30);
      c.writeUInt32LE(zip64 ? 0xffffffff : offset, 42);
      name.copy(c, 46);
      extra.copy(c, 46 + name.length);
      central.push(c);
      yield local;
      yield data;
      yield descriptor;
      offset += local.length + data.length + descriptor.length;
      count++;
    }
    const cdStart = offset;
    let cdSize = 0;
    for (const c of central) {
      yield c;
      cdSize += c.length;
    }
    const zip64 = count >= 0xffff || cdStart >= 0xffffffff;
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
      yield rec;
      yield loc;
    }
    const eocd = Buffer.alloc(22);
    eocd.writeUInt32LE(0x06054b50, 0);
    eocd.writeUInt16LE(zip64 ? 0xffff : count, 8);
    eocd.writeUInt16LE(zip64 ? 0xffff : count, 10);
    eocd.writeUInt32LE(zip64 ? 0xffffffff : cdSize, 12);
    eocd.writeUInt32LE(zip64 ? 0xffffffff : cdStart, 16);
    yield eocd;
  }
  return Readable.from(generate(), { objectMode: false });
}
