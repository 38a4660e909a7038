import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DedupeStage } from '../../../src/modules/ingest/dedupe.stage';
import type { PendingInstance } from '../../../src/modules/ingest/ingest-run';
import { parseDicomHeader, type InstanceHeader } from '../../../src/dicom-archive/dicom-header';
import { createStudiesRepository } from '../../../src/modules/studies/studies.repository';
import { crcOf } from '../../../src/dicom-archive/zip-reader';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { openRun, type OpenedRun } from '../../helpers/ingest-run';
import { buildZip, makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
let opened: OpenedRun;

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-dedupe-stage@example.com');
  opened = await openRun(ctx, ada.id, buildZip([{ name: 'a.dcm', data: Buffer.from('unused') }]));
});
afterAll(async () => {
  await opened?.close();
  await ctx?.close();
});

const headerOf = (bytes: Buffer): InstanceHeader => {
  const h = parseDicomHeader(bytes, { complete: true });
  if (h.kind !== 'instance') throw new Error('not an instance');
  return h;
};
const pending = (bytes: Buffer): PendingInstance => ({
  header: headerOf(bytes),
  crc: crcOf(bytes),
  size: bytes.length,
  data: bytes,
  file: opened.files[0]!,
  dataOffset: null,
});

describe('dedupe stage', () => {
  it('takes the first copy of an instance in the upload', () => {
    const dedupe = new DedupeStage(opened.run, createStudiesRepository(ctx.services.database.db));
    const bytes = makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() });
    const header = headerOf(bytes);
    expect(dedupe.seenBefore(header)).toBe(false);
    dedupe.take(header);
    expect(dedupe.seenBefore(header)).toBe(true);
    // The same SOP Instance UID in another study is another instance.
    expect(dedupe.seenBefore({ ...header, studyInstanceUid: uid() })).toBe(false);
  });

  it("indexes what the owner already has unchanged, and charges new and changed instances' bytes", async () => {
    const studyUid = uid();
    const seriesUid = uid();
    const [same, changed] = [uid(), uid()];
    const storedSame = makeDicom({ studyUid, seriesUid, sopUid: same, instanceNumber: 1 });
    const storedChanged = makeDicom({ studyUid, seriesUid, sopUid: changed, instanceNumber: 2 });
    await ingestFiles(ctx, ada.id, [storedSame, storedChanged]);

    const bigger = makeDicom({
      studyUid,
      seriesUid,
      sopUid: changed,
      instanceNumber: 2,
      rows: 16,
      columns: 16,
    });
    const fresh = makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: 3 });
    const { run } = opened;
    const dedupe = new DedupeStage(run, createStudiesRepository(ctx.services.database.db));
    const { toStore, addedBytes } = await dedupe.againstStored([
      pending(storedSame),
      pending(bigger),
      pending(fresh),
    ]);
    expect(toStore.map((p) => p.header.sopInstanceUid)).toEqual([changed, headerOf(fresh).sopInstanceUid]);
    expect(addedBytes).toBe(bigger.length - storedChanged.length + fresh.length);
    expect(run.summary.unchanged).toBe(1);
    expect(run.items).toEqual([
      expect.objectContaining({ storageKey: null, sizeBytes: storedSame.length, crc32: crcOf(storedSame) }),
    ]);
  });
});
