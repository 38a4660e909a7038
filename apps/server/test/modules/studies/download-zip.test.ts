import { mkdtemp, mkdir, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ZipLayout, parseRange } from '../../../src/modules/studies/download-zip';
import { FsObjectStorage } from '../../../src/ports/storage/fs-storage';

let dir: string;
let storage: FsObjectStorage;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mi-zip64-'));
  storage = new FsObjectStorage(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const at = (storageKey: string, sizeBytes: number, storageOffset = 0) => ({
  storageKey,
  sizeBytes,
  storageOffset,
});

class LayoutReader extends yauzl.RandomAccessReader {
  constructor(private readonly layout: ZipLayout) {
    super();
  }
  override _readStreamForRange(start: number, end: number) {
    if (end <= start) {
      const empty = new PassThrough();
      empty.end();
      return empty;
    }
    return this.layout.stream(storage, start, end - 1);
  }
}

it('uses ZIP64 above 4 GiB: a reader finds every entry and the bytes after the big one', async () => {
  const small = Buffer.from('first file');
  const tail = Buffer.from('the file after four gigabytes');
  await storage.put('dicom/z/a.dcm', small);
  // The last file is a slice of a bigger object, as instances of an archive kept whole are.
  await storage.put(
    'dicom/z/pack.zip',
    Buffer.concat([Buffer.from('header bytes'), tail, Buffer.from('after')]),
  );
  // A sparse 4.5 GiB object: no disk space used, real bytes (zeros) when read.
  const bigSize = 4.5 * 1024 ** 3;
  await mkdir(path.join(dir, 'dicom', 'z'), { recursive: true });
  const fh = await open(path.join(dir, 'dicom', 'z', 'b.dcm'), 'w');
  await fh.truncate(bigSize);
  await fh.close();

  const layout = new ZipLayout([
    {
      name: '001_CT/00001.dcm',
      size: small.length,
      crc32: crc32(small) >>> 0,
      location: at('dicom/z/a.dcm', small.length),
    },
    { name: '001_CT/00002.dcm', size: bigSize, crc32: 0, location: at('dicom/z/b.dcm', bigSize) },
    {
      name: '001_CT/00003.dcm',
      size: tail.length,
      crc32: crc32(tail) >>> 0,
      location: at('dicom/z/pack.zip', tail.length, 'header bytes'.length),
    },
  ]);
  expect(layout.length).toBeGreaterThan(bigSize);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromRandomAccessReader(
      new LayoutReader(layout),
      layout.length,
      { lazyEntries: true, validateEntrySizes: true, autoClose: false },
      (err, z) => (err ? reject(err) : resolve(z)),
    ),
  );
  const entries: yauzl.Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (e: yauzl.Entry) => {
      entries.push(e);
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  expect(entries.map((e) => [e.fileName, e.uncompressedSize])).toEqual([
    ['001_CT/00001.dcm', small.length],
    ['001_CT/00002.dcm', bigSize],
    ['001_CT/00003.dcm', tail.length],
  ]);
  expect(entries[2]!.relativeOffsetOfLocalHeader).toBeGreaterThan(0xffffffff);
  const last = await new Promise<Buffer>((resolve, reject) =>
    zip.openReadStream(entries[2]!, async (err, s) => {
      if (err) return reject(err);
      const chunks: Buffer[] = [];
      for await (const c of s) chunks.push(c as Buffer);
      resolve(Buffer.concat(chunks));
    }),
  );
  expect(last.equals(tail)).toBe(true);
  // Same input, same bytes: the layout (and so the ETag) is deterministic.
  expect(new ZipLayout([{ name: 'x', size: 1, crc32: 1, location: at('k', 1) }]).etag).toBe(
    new ZipLayout([{ name: 'x', size: 1, crc32: 1, location: at('k', 1) }]).etag,
  );
});

it('parses byte ranges', () => {
  expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
  expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
  expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
  expect(parseRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
  expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
  expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
  expect(parseRange(undefined, 100)).toBeNull();
});
