import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadStage, verifiedCrc, type EntryBytes } from '../../../src/modules/ingest/read.stage';
import { classifyEntry } from '../../../src/dicom-archive/entry-classifier';
import { crcOf, EntryReadError } from '../../../src/dicom-archive/zip-reader';
import type { ScannedEntry } from '../../../src/dicom-archive/zip-stream-scanner';
import { writeZip } from '../../helpers/dicom-mutations';
import { openRun, type OpenedRun } from '../../helpers/ingest-run';
import { buildZip, makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
const opened: OpenedRun[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-read-stage@example.com');
});
afterAll(async () => {
  for (const o of opened) await o.close();
  await ctx?.close();
});

const open = async (zip: Buffer) => {
  const o = await openRun(ctx, ada.id, zip);
  opened.push(o);
  return o;
};
const dicoms = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), instanceNumber: i }),
  );
const bytesOf = (b: EntryBytes) => {
  if (b.kind !== 'read') throw new Error(`expected bytes, got ${b.kind}`);
  return b;
};

describe('read stage', () => {
  it('reads a stored entry whole and says where its bytes sit in the archive', async () => {
    const [a, b] = dicoms(2);
    const zip = buildZip([
      { name: 'a.dcm', data: a! },
      { name: 'b.dcm', data: b! },
    ]);
    const { run, files } = await open(zip);
    const reader = new ReadStage(run.archive, files);
    for (const [i, data] of [a!, b!].entries()) {
      const read = bytesOf(await reader.read(i, true));
      expect(read.complete).toBe(true);
      expect(read.data.equals(data)).toBe(true);
      expect(zip.subarray(read.dataOffset!, read.dataOffset! + data.length).equals(data)).toBe(true);
      expect(verifiedCrc(files[i]!, read)).toBe(crcOf(data));
    }
  });

  it('reads compressed entries through the ZIP stream, with no archive offset', async () => {
    const [a] = dicoms(1);
    const { run, files } = await open(buildZip([{ name: 'a.dcm', data: a!, method: 'deflate' }]));
    const read = bytesOf(await new ReadStage(run.archive, files).read(0, true));
    expect(read).toMatchObject({ complete: true, dataOffset: null });
    expect(read.data.equals(a!)).toBe(true);
    expect(verifiedCrc(files[0]!, read)).toBe(crcOf(a!));
  });

  it('reads stored entries ahead of the one being parsed, several at once', async () => {
    const data = dicoms(40);
    const { run, files } = await open(buildZip(data.map((d, i) => ({ name: `${i}.dcm`, data: d }))));
    let inFlight = 0;
    let most = 0;
    const counted = {
      ...run.archive,
      ranges: {
        read: async (start: number, length: number) => {
          most = Math.max(most, ++inFlight);
          try {
            return await run.archive.ranges.read(start, length);
          } finally {
            inFlight--;
          }
        },
        close: () => run.archive.ranges.close(),
      },
    };
    const reader = new ReadStage(counted, files);
    for (const [i, d] of data.entries())
      expect(bytesOf(await reader.read(i, true)).data.equals(d)).toBe(true);
    await reader.settled();
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(16);
  });

  it('fails the read of a damaged stored entry, and flags a damaged compressed one by its CRC', async () => {
    const [a, b] = dicoms(2);
    const zip = writeZip([
      { name: 'stored.dcm', data: a!, crc: (crcOf(a!) ^ 1) >>> 0 },
      { name: 'deflated.dcm', data: b!, method: 'deflate', crc: (crcOf(b!) ^ 1) >>> 0 },
    ]);
    const { run, files } = await open(zip);
    const reader = new ReadStage(run.archive, files);
    await expect(reader.read(0, true)).rejects.toBeInstanceOf(EntryReadError);
    const read = await reader.read(1, true);
    expect(verifiedCrc(files[1]!, read)).toBeNull();
  });

  it("takes the prescan's result when the central directory agrees, and reads the entry otherwise", async () => {
    const [a, b] = dicoms(2);
    const { run, files } = await open(
      buildZip([
        { name: 'a.dcm', data: a! },
        { name: 'b.dcm', data: b! },
      ]),
    );
    const scanned = (data: Buffer, size: number): ScannedEntry => ({
      size,
      crc: crcOf(data),
      dataOffset: 1234,
      outcome: classifyEntry(data, true, undefined, { fileSize: data.length }),
    });
    const prescanned = new Map<number, ScannedEntry>([
      [files[0]!.entry.relativeOffsetOfLocalHeader, scanned(a!, a!.length)],
      // A size the central directory does not confirm: not trusted.
      [files[1]!.entry.relativeOffsetOfLocalHeader, scanned(b!, b!.length + 1)],
    ]);
    const reader = new ReadStage(run.archive, files, prescanned);
    const first = await reader.read(0, true);
    expect(first).toMatchObject({ kind: 'prescanned', dataOffset: 1234 });
    expect(verifiedCrc(files[0]!, first)).toBe(crcOf(a!));
    expect((await reader.read(1, true)).kind).toBe('read');
    // A file a DICOMDIR lists is always read.
    expect((await reader.read(0, false)).kind).toBe('read');
  });
});
