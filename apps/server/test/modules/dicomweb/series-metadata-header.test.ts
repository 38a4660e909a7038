import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInstanceMetadata, HEADER_READ_BYTES } from '../../../src/modules/dicomweb/instance-header';
import { parseInstance, toDicomJson } from '../../../src/modules/dicomweb/part10';
import { sortTags } from '../../../src/modules/dicomweb/qido';
import type { ByteRange, ObjectStorage } from '../../../src/ports/storage/storage';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { createTestContext, registerPatient, type TestContext } from '../../helpers/test-app';

// Series metadata reads only the start of each file when Pixel Data ends it
// (src/modules/dicomweb/instance-header.ts); these files check that whatever else a file holds
// still reaches the metadata, exactly as a parse of the whole file describes it.

const EXPLICIT_LE = '1.2.840.10008.1.2.1';
const JPEG_BASELINE = '1.2.840.10008.1.2.4.50';
const CT = '1.2.840.10008.5.1.4.1.1.2';
const LONG_VRS = new Set(['OB', 'OW', 'OF', 'OD', 'OL', 'OV', 'SQ', 'UC', 'UR', 'UT', 'UN']);

/** One explicit VR little endian element; text values padded to an even length. */
function el(group: number, element: number, vr: string, value: Buffer | string): Buffer {
  let v = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  if (v.length % 2) v = Buffer.concat([v, Buffer.from(vr === 'UI' ? [0] : vr === 'OB' ? [0] : [0x20])]);
  const long = LONG_VRS.has(vr);
  const h = Buffer.alloc(long ? 12 : 8);
  h.writeUInt16LE(group, 0);
  h.writeUInt16LE(element, 2);
  h.write(vr, 4, 'latin1');
  if (long) h.writeUInt32LE(v.length, 8);
  else h.writeUInt16LE(v.length, 6);
  return Buffer.concat([h, v]);
}
const us = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const uid = () => `2.25.${BigInt(`0x${randomUUID().replace(/-/g, '')}`).toString()}`;

/** Native 16-bit pixel data of `rows` × `cols`. */
const nativePixels = (rows: number, cols: number) =>
  el(0x7fe0, 0x0010, 'OW', Buffer.alloc(rows * cols * 2, 7));

/** Encapsulated pixel data: an empty offset table, one fragment, the sequence delimiter. */
function encapsulatedPixels(fragmentBytes: number): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16LE(0x7fe0, 0);
  head.writeUInt16LE(0x0010, 2);
  head.write('OB', 4, 'latin1');
  head.writeUInt32LE(0xffffffff, 8);
  const item = (length: number, element = 0xe000) => {
    const b = Buffer.alloc(8);
    b.writeUInt16LE(0xfffe, 0);
    b.writeUInt16LE(element, 2);
    b.writeUInt32LE(length, 4);
    return b;
  };
  return Buffer.concat([
    head,
    item(0),
    item(fragmentBytes),
    Buffer.alloc(fragmentBytes, 0xab),
    item(0, 0xe0dd),
  ]);
}

interface Built {
  bytes: Buffer;
  sop: string;
  ts: string;
}

function part10(opts: {
  study: string;
  series: string;
  number: number;
  ts?: string;
  rows?: number;
  cols?: number;
  /** Elements between the image description and Pixel Data. */
  before?: Buffer[];
  pixels: Buffer;
  after?: Buffer[];
}): Built {
  const ts = opts.ts ?? EXPLICIT_LE;
  const sop = uid();
  const meta = Buffer.concat([
    el(0x0002, 0x0001, 'OB', Buffer.from([0, 1])),
    el(0x0002, 0x0002, 'UI', CT),
    el(0x0002, 0x0003, 'UI', sop),
    el(0x0002, 0x0010, 'UI', ts),
  ]);
  const groupLength = Buffer.alloc(4);
  groupLength.writeUInt32LE(meta.length);
  const bytes = Buffer.concat([
    Buffer.alloc(128),
    Buffer.from('DICM', 'latin1'),
    el(0x0002, 0x0000, 'UL', groupLength),
    meta,
    el(0x0008, 0x0005, 'CS', 'ISO_IR 192'),
    el(0x0008, 0x0016, 'UI', CT),
    el(0x0008, 0x0018, 'UI', sop),
    el(0x0008, 0x0020, 'DA', '20240115'),
    el(0x0008, 0x0060, 'CS', 'CT'),
    el(0x0008, 0x103e, 'LO', 'Header reads'),
    el(0x0010, 0x0010, 'PN', 'Header^Test'),
    el(0x0010, 0x0020, 'LO', 'HDR-1'),
    el(0x0020, 0x000d, 'UI', opts.study),
    el(0x0020, 0x000e, 'UI', opts.series),
    el(0x0020, 0x0013, 'IS', String(opts.number)),
    el(0x0020, 0x0032, 'DS', `0\\0\\${opts.number * 2}`),
    el(0x0028, 0x0002, 'US', us(1)),
    el(0x0028, 0x0004, 'CS', 'MONOCHROME2'),
    el(0x0028, 0x0010, 'US', us(opts.rows ?? 512)),
    el(0x0028, 0x0011, 'US', us(opts.cols ?? 512)),
    el(0x0028, 0x0100, 'US', us(16)),
    el(0x0028, 0x0101, 'US', us(16)),
    el(0x0028, 0x0102, 'US', us(15)),
    el(0x0028, 0x0103, 'US', us(0)),
    el(0x0028, 0x1050, 'DS', '500'),
    ...(opts.before ?? []),
    opts.pixels,
    ...(opts.after ?? []),
  ]);
  return { bytes, sop, ts };
}

/** Private elements after Pixel Data, as some writers add. */
const trailing = () => [el(0x7fe1, 0x0010, 'LO', 'ACME 1.0'), el(0x7fe1, 0x1001, 'LO', 'after the pixels')];
/** A private block before Pixel Data that makes the header `size` bytes longer. */
const largeHeader = (size: number) => [
  el(0x7fdf, 0x0010, 'LO', 'ACME 1.0'),
  el(0x7fdf, 0x1001, 'UT', 'x'.repeat(size)),
];

/** What the metadata held when it was built from whole files: toDicomJson of the whole file, in tag order. */
function wholeFileJson(f: Built, bulkBase: string): string {
  return JSON.stringify(sortTags(toDicomJson(parseInstance(f.bytes, f.ts), { bulkBase })));
}

describe('series metadata from the start of each file', () => {
  let ctx: TestContext;
  let auth: { authorization: string };
  let owner: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    const data = (await registerPatient(ctx, 'header-reads@example.com')).json().data;
    owner = data.id as string;
    auth = { authorization: `Bearer ${data.authToken as string}` };
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
  });

  it('describes each file completely: elements after Pixel Data, headers longer than the first read, encapsulated pixel data', async () => {
    const study = uid();
    const series = uid();
    const s = { study, series };
    const files = [
      // Pixel Data last: only the start is read.
      part10({ ...s, number: 1, pixels: nativePixels(512, 512) }),
      // Elements after Pixel Data.
      part10({ ...s, number: 2, pixels: nativePixels(512, 512), after: trailing() }),
      // A header longer than the first read, in a file read whole.
      part10({ ...s, number: 3, before: largeHeader(3 * HEADER_READ_BYTES), pixels: nativePixels(512, 512) }),
      // A header longer than the first read in a large file: read in a second, larger read.
      part10({
        ...s,
        number: 4,
        rows: 1536,
        cols: 1024,
        before: largeHeader(100_000),
        pixels: nativePixels(1536, 1024),
      }),
      // The same with an element after Pixel Data.
      part10({
        ...s,
        number: 5,
        rows: 1536,
        cols: 1024,
        before: largeHeader(100_000),
        pixels: nativePixels(1536, 1024),
        after: trailing(),
      }),
      // Encapsulated Pixel Data last, and followed by an element.
      part10({ ...s, number: 6, ts: JPEG_BASELINE, pixels: encapsulatedPixels(200_000) }),
      part10({ ...s, number: 7, ts: JPEG_BASELINE, pixels: encapsulatedPixels(200_000), after: trailing() }),
    ];
    await ingestFiles(
      ctx,
      owner,
      files.map((f) => f.bytes),
    );
    const res = await ctx.app.inject({
      url: `/dicomweb/studies/${study}/series/${series}/metadata`,
      headers: auth,
    });
    expect(res.statusCode).toBe(200);
    const got = res.json() as Array<Record<string, { vr: string; Value?: unknown[]; BulkDataURI?: string }>>;
    expect(got).toHaveLength(files.length);
    files.forEach((f, i) => {
      const bulk = got[i]!['7FE00010']!.BulkDataURI!;
      expect(bulk).toMatch(new RegExp(`/instances/${f.sop}/bulkdata/7FE00010$`));
      expect(JSON.stringify(got[i])).toBe(wholeFileJson(f, bulk.slice(0, -'/bulkdata/7FE00010'.length)));
    });
    for (const i of [1, 4, 6]) expect(got[i]!['7FE11001']).toEqual({ vr: 'LO', Value: ['after the pixels'] });
    for (const i of [2, 3, 4])
      expect((got[i]!['7FDF1001']!.Value![0] as string).length).toBeGreaterThan(90_000);
    expect(got[5]!['7FE00010']!.vr).toBe('OB');
    expect(got[0]!['00100010']).toEqual({ vr: 'PN', Value: [{ Alphabetic: 'Header^Test' }] });
  }, 60_000);

  it('reads only the start of a file that Pixel Data ends, and all of one it does not', async () => {
    const s = { study: uid(), series: uid() };
    const storage = ctx.services.storage;
    const reads: Array<ByteRange | null> = [];
    const spy = Object.assign(Object.create(storage) as ObjectStorage, {
      get: (key: string, range?: ByteRange) => {
        reads.push(range ?? null);
        return storage.get(key, range);
      },
    });
    const stored = async (f: Built, junk = 0) => {
      // `junk` bytes around the file, as inside an archive kept whole.
      const key = `header-test/${randomUUID()}`;
      await storage.put(key, Buffer.concat([Buffer.alloc(junk, 1), f.bytes, Buffer.alloc(junk, 2)]));
      return { storageKey: key, storageOffset: junk, sizeBytes: f.bytes.length, transferSyntaxUid: f.ts };
    };
    const bytesRead = () =>
      reads.reduce((n, r) => n + (r ? (r.end ?? Infinity) - (r.start ?? 0) + 1 : Infinity), 0);

    for (const junk of [0, 1000]) {
      const last = part10({ ...s, number: 1, pixels: nativePixels(512, 512) });
      reads.length = 0;
      const parsed = await readInstanceMetadata(spy, await stored(last, junk));
      expect(bytesRead()).toBeLessThanOrEqual(HEADER_READ_BYTES);
      expect(JSON.stringify(toDicomJson(parsed, { bulkBase: 'b' }))).toBe(wholeFileJson(last, 'b'));

      const after = part10({ ...s, number: 2, pixels: nativePixels(512, 512), after: trailing() });
      reads.length = 0;
      const whole = await readInstanceMetadata(spy, await stored(after, junk));
      expect(bytesRead()).toBeGreaterThan(after.bytes.length);
      expect(toDicomJson(whole, { bulkBase: 'b' })['7FE11001']).toEqual({
        vr: 'LO',
        Value: ['after the pixels'],
      });

      // Encapsulated: the item headers past the first read are read on their own.
      const enc = part10({ ...s, number: 3, ts: JPEG_BASELINE, pixels: encapsulatedPixels(200_000) });
      reads.length = 0;
      await readInstanceMetadata(spy, await stored(enc, junk));
      expect(bytesRead()).toBeLessThanOrEqual(HEADER_READ_BYTES + 8);
    }
  }, 60_000);
});
