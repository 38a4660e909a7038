import { describe, expect, it } from 'vitest';
import { ZipStreamScanner, type EntryMemory } from '../../../src/dicom-archive/zip-stream-scanner';
import { buildZip, makeDicom, uid, type ZipInput } from '../../helpers/studies';

/** A budget of `limit` bytes that records what is held, so tests can see it all given back. */
function memory(limit = Infinity): EntryMemory & { held: number } {
  const m = {
    held: 0,
    take(bytes: number) {
      if (m.held + bytes > limit) return false;
      m.held += bytes;
      return true;
    },
    give(bytes: number) {
      m.held -= bytes;
    },
  };
  return m;
}

const dicom = (sopUid = uid()) =>
  makeDicom({ studyUid: '1.2.3', seriesUid: '1.2.3.4', sopUid, instanceNumber: 1, rows: 16, columns: 16 });

/** Pushes `zip` in chunks of `size` bytes (fresh buffers, as a socket delivers them). */
function pushInChunks(scanner: ZipStreamScanner, zip: Buffer, size: number, from = 0, to = zip.length) {
  for (let at = from; at < to; at += size)
    scanner.push(Buffer.from(zip.subarray(at, Math.min(at + size, to))));
}

/** The entries' fields as plain values, in header order. */
function results(scanner: ZipStreamScanner) {
  return [...scanner.entries.entries()]
    .sort(([a], [b]) => a - b)
    .map(([headerOffset, e]) => ({
      headerOffset,
      dataOffset: e.dataOffset,
      size: e.size,
      crc: e.crc,
      outcome:
        e.outcome.kind === 'instance'
          ? `instance ${e.outcome.header.sopInstanceUid}`
          : e.outcome.kind === 'skip'
            ? `skip ${e.outcome.reason}`
            : 'dicomdir',
    }));
}

/** Where each entry's local header starts in a ZIP. */
function headerOffsets(zip: Buffer): number[] {
  const offsets: number[] = [];
  for (let at = 0; zip.readUInt32LE(at) === 0x04034b50;) {
    offsets.push(at);
    at += 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28) + zip.readUInt32LE(at + 18);
  }
  return offsets;
}

describe('reading a ZIP from its bytes as they pass by', () => {
  const sops = [uid(), uid(), uid()];
  const entries: ZipInput[] = [
    { name: 'DICOM/a.dcm', data: dicom(sops[0]) },
    { name: 'notes.txt', data: Buffer.from('not an image') },
    { name: 'empty', data: Buffer.alloc(0) },
    { name: 'DICOM/b.dcm', data: dicom(sops[1]) },
    { name: 'packed.dcm', data: dicom(), method: 'deflate' },
    { name: 'DICOM/c.dcm', data: dicom(sops[2]) },
  ];
  const zip = buildZip(entries);
  const offsets = headerOffsets(zip);
  const largestDicom = Math.max(...[0, 3, 5].map((i) => entries[i]!.data.length));

  it('classifies every stored entry, whatever the chunks, and leaves compressed ones to the job', () => {
    const whole = new ZipStreamScanner(memory(), { maxEntry: 1 << 30 });
    whole.push(zip);
    const expected = results(whole);
    expect(expected.map((e) => e.outcome)).toEqual([
      `instance ${sops[0]}`,
      'skip not a DICOM file',
      'skip not a DICOM file',
      `instance ${sops[1]}`,
      `instance ${sops[2]}`,
    ]);
    // The first entry's data starts right after its header and name.
    expect(expected[0]).toMatchObject({ headerOffset: 0, dataOffset: 30 + 'DICOM/a.dcm'.length });
    expect(whole.stopped).toBe(true); // it reached the central directory

    for (const size of [1, 7, 29, 30, 31, 64, 4096]) {
      const m = memory();
      const scanner = new ZipStreamScanner(m, { maxEntry: 1 << 30 });
      pushInChunks(scanner, zip, size);
      expect(results(scanner), `chunks of ${size}`).toEqual(expected);
      expect(scanner.position).toBe(zip.length);
      expect(m.held).toBe(0);
    }
  });

  it('leaves an entry whose bytes do not match its CRC-32 to the job and reads on', () => {
    const damaged = Buffer.from(zip);
    const at = offsets[3]! + 30 + 'DICOM/b.dcm'.length + 300;
    damaged[at] = damaged[at]! ^ 0xff;
    const scanner = new ZipStreamScanner(memory(), { maxEntry: 1 << 30 });
    pushInChunks(scanner, damaged, 1000);
    expect(results(scanner).map((e) => e.outcome)).toEqual([
      `instance ${sops[0]}`,
      'skip not a DICOM file',
      'skip not a DICOM file',
      `instance ${sops[2]}`,
    ]);
  });

  it('stops at an entry whose size only a data descriptor gives', () => {
    const withDescriptor = Buffer.from(zip);
    withDescriptor.writeUInt16LE(0x0808, offsets[3]! + 6);
    const scanner = new ZipStreamScanner(memory(), { maxEntry: 1 << 30 });
    pushInChunks(scanner, withDescriptor, 1000);
    expect(scanner.stopped).toBe(true);
    expect(results(scanner).map((e) => e.headerOffset)).toEqual([offsets[0], offsets[1], offsets[2]]);
    expect(scanner.position).toBe(zip.length);
  });

  it('leaves entries larger than the limit, or than the memory left, to the job', () => {
    const tooLarge = new ZipStreamScanner(memory(), { maxEntry: 1000 });
    pushInChunks(tooLarge, zip, 512);
    expect(results(tooLarge).map((e) => e.outcome)).toEqual([
      'skip not a DICOM file',
      'skip not a DICOM file',
    ]);

    // Room for one DICOM entry at a time: entries end before the next starts, so all fit.
    const m = memory(largestDicom);
    const oneAtATime = new ZipStreamScanner(m, { maxEntry: 1 << 30 });
    pushInChunks(oneAtATime, zip, 512);
    expect(results(oneAtATime)).toHaveLength(5);
    // Two scans sharing that room: the second cannot hold its first entry while the first holds its own.
    const shared = memory(largestDicom);
    const first = new ZipStreamScanner(shared, { maxEntry: 1 << 30 });
    const second = new ZipStreamScanner(shared, { maxEntry: 1 << 30 });
    first.push(zip.subarray(0, offsets[0]! + 100));
    second.push(zip.subarray(0, offsets[1]!));
    first.push(zip.subarray(offsets[0]! + 100));
    expect(results(first)[0]!.outcome).toBe(`instance ${sops[0]}`);
    expect(results(second)).toEqual([]);
    expect(shared.held).toBe(0);
  });

  it('goes back to an earlier offset and reads the bytes pushed again from there', () => {
    const whole = new ZipStreamScanner(memory(), { maxEntry: 1 << 30 });
    whole.push(zip);
    // Bytes up to the middle of c.dcm passed, but the file got only up to the middle of b.dcm.
    const cut = offsets[3]! + 30 + 'DICOM/b.dcm'.length + 200;
    const m = memory();
    const scanner = new ZipStreamScanner(m, { maxEntry: 1 << 30 });
    pushInChunks(scanner, zip, 1000, 0, offsets[5]! + 500);
    expect(results(scanner)).toHaveLength(4);

    const from = scanner.rewind(cut);
    expect(from).toBe(offsets[3]);
    expect(scanner.position).toBe(from);
    expect(results(scanner).map((e) => e.headerOffset)).toEqual([offsets[0], offsets[1], offsets[2]]);
    expect(m.held).toBe(0);
    pushInChunks(scanner, zip, 333, from);
    expect(results(scanner)).toEqual(results(whole));
  });

  it('reads what the resumed upload brings after the offset, not what passed before', () => {
    // The first bytes passed were of one archive; the file kept them only up to the middle of b.dcm's
    // local header, and the upload resumed there with another archive's bytes.
    const other = sops[1]!.slice(0, -1) + (sops[1]!.endsWith('9') ? '8' : '9');
    const changed = buildZip(entries.map((e, i) => (i === 3 ? { ...e, data: dicom(other) } : e)));
    const cut = offsets[3]! + 10;
    expect(changed.subarray(0, cut).equals(zip.subarray(0, cut))).toBe(true);
    const scanner = new ZipStreamScanner(memory(), { maxEntry: 1 << 30 });
    pushInChunks(scanner, zip, 1000);
    const from = scanner.rewind(cut);
    expect(from).toBe(offsets[3]);
    pushInChunks(scanner, changed, 333, from);
    expect(results(scanner).map((e) => e.outcome)).toEqual([
      `instance ${sops[0]}`,
      'skip not a DICOM file',
      'skip not a DICOM file',
      `instance ${other}`,
      `instance ${sops[2]}`,
    ]);
  });

  it('goes back to the offset itself when it falls between entries, and to the start before any', () => {
    const scanner = new ZipStreamScanner(memory(), { maxEntry: 1 << 30 });
    pushInChunks(scanner, zip, 100, 0, offsets[4]!);
    expect(scanner.rewind(offsets[3]!)).toBe(offsets[3]);
    expect(results(scanner)).toHaveLength(3);
    expect(scanner.rewind(10)).toBe(0);
    expect(results(scanner)).toEqual([]);
    pushInChunks(scanner, zip, 100);
    expect(results(scanner)).toHaveLength(5);
    expect(() => scanner.rewind(zip.length + 1)).toThrow(RangeError);
  });

  it('gives back the memory of an entry whose name it was reading when it goes back', () => {
    const m = memory();
    const scanner = new ZipStreamScanner(m, { maxEntry: 1 << 30 });
    const inName = offsets[3]! + 30 + 3;
    scanner.push(zip.subarray(0, inName));
    expect(m.held).toBe(entries[3]!.data.length);
    expect(scanner.rewind(inName)).toBe(offsets[3]);
    expect(m.held).toBe(0);
    pushInChunks(scanner, zip, 100, offsets[3]);
    expect(results(scanner)).toHaveLength(5);
    expect(m.held).toBe(0);
  });
});
