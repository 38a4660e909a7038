import { crc32 } from 'node:zlib';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  archiveSources,
  buildStoreZip,
  centralHeader,
  crc32OfBlob,
  localHeader,
  normalizeEntryPath,
  orderSources,
  type ZipSource,
} from '../src/features/upload/utils/store-zip';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

async function toBytes(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

const sources = (): ZipSource[] => [
  { path: 'CD/DICOM/IM2', file: new Blob([bytes(70_000, 2)]) },
  { path: 'CD\\DICOM\\IM1', file: new Blob([bytes(1_000, 1)]) },
  { path: '../../etc/passwd', file: new Blob([bytes(10, 3)]) },
  { path: 'Ünïcødé 患者.dcm', file: new Blob([bytes(333, 4)]) },
  { path: 'empty', file: new Blob([]) },
  { path: 'dup', file: new Blob([bytes(5, 5)]) },
  { path: './dup', file: new Blob([bytes(6, 6)]) },
];

describe('store-mode zip', () => {
  it('normalises paths so no entry leaves the archive root', () => {
    expect(normalizeEntryPath('../../a/./b\\c/')).toBe('a/b/c');
    expect(normalizeEntryPath('/abs/x')).toBe('abs/x');
    expect(normalizeEntryPath('..')).toBe('file');
  });

  it('computes the same CRC-32 as zlib, chunk by chunk', async () => {
    const data = bytes(300_000, 9);
    const seen: number[] = [];
    const crc = await crc32OfBlob(new Blob([data.subarray(0, 100_000), data.subarray(100_000)]), (n) =>
      seen.push(n),
    );
    expect(crc).toBe(crc32(data));
    expect(seen.reduce((a, b) => a + b, 0)).toBe(data.length);
  });

  it('archives every file byte for byte, readable by another zip reader', async () => {
    const progress: number[] = [];
    const zip = await archiveSources(sources(), (f) => progress.push(f));
    expect(progress.at(-1)).toBe(1);
    expect(progress.every((f, i) => i === 0 || f >= progress[i - 1]!)).toBe(true);
    const files = unzipSync(await toBytes(zip.blob));
    expect(Object.keys(files)).toEqual([
      'CD/DICOM/IM1',
      'CD/DICOM/IM2',
      'dup',
      'dup (2)',
      'empty',
      'etc/passwd',
      'Ünïcødé 患者.dcm',
    ]);
    expect(files['CD/DICOM/IM2']).toEqual(bytes(70_000, 2));
    expect(files['CD/DICOM/IM1']).toEqual(bytes(1_000, 1));
    expect(files['etc/passwd']).toEqual(bytes(10, 3));
    expect(files['Ünïcødé 患者.dcm']).toEqual(bytes(333, 4));
    expect(files['empty']).toEqual(new Uint8Array());
    expect(files['dup']).toEqual(bytes(5, 5));
    expect(files['dup (2)']).toEqual(bytes(6, 6));
  });

  it('gives the same bytes for the same selection in any order', async () => {
    const a = await archiveSources(sources(), () => undefined);
    const b = await archiveSources(sources().reverse(), () => undefined);
    expect(await toBytes(a.blob)).toEqual(await toBytes(b.blob));
    expect(a.centralDirectory).toEqual(b.centralDirectory);
    const changed = sources();
    changed[0] = { path: 'CD/DICOM/IM2', file: new Blob([bytes(70_000, 7)]) };
    const c = await archiveSources(changed, () => undefined);
    expect(c.centralDirectory).not.toEqual(a.centralDirectory);
  });

  it('keeps the stored size: headers plus the files themselves', async () => {
    const list = orderSources(sources());
    const zip = buildStoreZip(list.map((s) => ({ ...s, crc: 0 })));
    const payload = list.reduce((sum, s) => sum + s.file.size, 0);
    const names = list.reduce((sum, s) => sum + new TextEncoder().encode(s.path).length, 0);
    expect(zip.blob.size).toBe(payload + list.length * (30 + 46) + 2 * names + 22);
  });

  it('writes ZIP64 end records that readers accept', async () => {
    const list = orderSources(sources());
    const entries = await Promise.all(list.map(async (s) => ({ ...s, crc: await crc32OfBlob(s.file) })));
    const zip = buildStoreZip(entries, { forceZip64: true });
    const data = await toBytes(zip.blob);
    const view = new DataView(data.buffer);
    expect(view.getUint32(data.length - 22, true)).toBe(0x06054b50);
    expect(view.getUint32(data.length - 22 - 20, true)).toBe(0x07064b50);
    expect(view.getUint32(data.length - 22 - 20 - 56, true)).toBe(0x06064b50);
    const files = unzipSync(data);
    expect(files['CD/DICOM/IM2']).toEqual(bytes(70_000, 2));
  });

  it('describes entries over 4 GiB and offsets past 4 GiB with ZIP64 extra fields', () => {
    const name = new TextEncoder().encode('big.dcm');
    const size = 5 * 1024 ** 3 + 7;
    const local = new DataView(localHeader(name, size, 0x12345678).buffer);
    expect(local.getUint16(4, true)).toBe(45);
    expect(local.getUint32(18, true)).toBe(0xffffffff);
    expect(local.getUint32(22, true)).toBe(0xffffffff);
    expect(local.getUint16(28, true)).toBe(20);
    expect(local.getUint16(30 + name.length, true)).toBe(1);
    expect(Number(local.getBigUint64(30 + name.length + 4, true))).toBe(size);
    expect(Number(local.getBigUint64(30 + name.length + 12, true))).toBe(size);

    const offset = 6 * 1024 ** 3;
    const central = new DataView(centralHeader(name, size, 0x12345678, offset).buffer);
    expect(central.getUint32(16, true)).toBe(0x12345678);
    expect(central.getUint32(42, true)).toBe(0xffffffff);
    expect(central.getUint16(30, true)).toBe(28);
    const extra = 46 + name.length;
    expect(Number(central.getBigUint64(extra + 4, true))).toBe(size);
    expect(Number(central.getBigUint64(extra + 12, true))).toBe(size);
    expect(Number(central.getBigUint64(extra + 20, true))).toBe(offset);

    const small = new DataView(centralHeader(name, 10, 1, offset).buffer);
    expect(small.getUint32(20, true)).toBe(10);
    expect(small.getUint16(30, true)).toBe(12);
    expect(Number(small.getBigUint64(46 + name.length + 4, true))).toBe(offset);
  });
});
