import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeArchive,
  finishedUploadSize,
  listStage,
  openArchive,
} from '../../../src/modules/ingest/list.stage';
import {
  DEFAULT_ZIP_LIMITS,
  IngestError,
  readEntryPrefix,
  readStoredEntry,
} from '../../../src/dicom-archive/zip-reader';
import { UploadScans } from '../../../src/modules/ingest/upload-scans';
import { writeZip } from '../../helpers/dicom-mutations';
import { silentLog, placeArchive } from '../../helpers/ingest-run';
import {
  buildZip,
  listen,
  makeDicom,
  newPatient,
  storageToken,
  tusUpload,
  uid,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-list-stage@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

const dicom = () => makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() });

describe('list stage', () => {
  it('lists the files with DICOMDIRs first, folders dropped, and says why entries were left out', async () => {
    const zip = writeZip([
      { name: 'CD/IMG1', data: dicom() },
      { name: 'CD/', data: Buffer.alloc(0), mode: 0o40755 },
      { name: 'CD/DICOMDIR', data: Buffer.from('index') },
      { name: 'secret.dcm', data: dicom(), method: 'deflate', flags: 0x0801 },
      { name: 'CD/IMG2', data: dicom(), method: 'deflate' },
      { name: 'dicomdir', data: Buffer.from('another index') },
    ]);
    const { objectName } = await placeArchive(ctx, ada.id, zip);
    const archive = await openArchive(ctx.services.uploadArea, objectName, zip.length, silentLog);
    try {
      const listing = await listStage(archive.zip, DEFAULT_ZIP_LIMITS);
      expect(listing.files.map((f) => f.name)).toEqual(['CD/DICOMDIR', 'dicomdir', 'CD/IMG1', 'CD/IMG2']);
      expect(listing.skipped).toEqual([{ name: 'secret.dcm', reason: 'encrypted file' }]);
      expect(listing.ms).toBeGreaterThanOrEqual(0);
    } finally {
      await closeArchive(archive);
    }
  });

  it('refuses an archive whose central directory fails its checks as a whole', async () => {
    const zip = buildZip([
      { name: 'ok.dcm', data: dicom() },
      { name: '../escape.dcm', data: dicom() },
    ]);
    const { objectName } = await placeArchive(ctx, ada.id, zip);
    const archive = await openArchive(ctx.services.uploadArea, objectName, zip.length, silentLog);
    try {
      await expect(listStage(archive.zip, DEFAULT_ZIP_LIMITS)).rejects.toBeInstanceOf(IngestError);
      await expect(listStage(archive.zip, { ...DEFAULT_ZIP_LIMITS, maxEntries: 1 })).rejects.toBeInstanceOf(
        IngestError,
      );
    } finally {
      await closeArchive(archive);
    }
  });

  it('takes a listing made earlier of the same archive under the same limits, failing it the same way', async () => {
    const zip = writeZip([
      { name: 'CD/IMG1', data: dicom() },
      { name: 'CD/DICOMDIR', data: Buffer.from('index') },
      { name: 'secret.dcm', data: dicom(), method: 'deflate', flags: 0x0801 },
    ]);
    const { objectName } = await placeArchive(ctx, ada.id, zip);
    const file = ctx.services.uploadArea.localPath!(objectName);
    const scans = new UploadScans();
    expect(scans.begin('u', file, 0)).toBe(true);
    scans.readTo('u', zip.length);
    scans.finished('u', zip.length, DEFAULT_ZIP_LIMITS);
    const made = (await scans.listingOf('u'))!;
    expect(made).toMatchObject({ size: zip.length, limits: DEFAULT_ZIP_LIMITS });
    const archive = await openArchive(ctx.services.uploadArea, objectName, zip.length, silentLog);
    try {
      const fresh = await listStage(archive.zip, DEFAULT_ZIP_LIMITS);
      const earlier = await listStage(archive.zip, DEFAULT_ZIP_LIMITS, made);
      expect(earlier.files.map((f) => f.name)).toEqual(['CD/DICOMDIR', 'CD/IMG1']);
      expect(earlier.skipped).toEqual(fresh.skipped);
      // The entries it gives read like the archive's own.
      for (const [i, f] of earlier.files.entries()) {
        const own = fresh.files[i]!;
        expect(f.entry.isCompressed()).toBe(own.entry.isCompressed());
        expect(await readEntryPrefix(archive.zip, f.entry, 1 << 20)).toEqual(
          await readEntryPrefix(archive.zip, own.entry, 1 << 20),
        );
        expect(await readStoredEntry(archive.ranges, f.entry)).toEqual(
          await readStoredEntry(archive.ranges, own.entry),
        );
      }
      // A refusal made earlier fails the archive with its reason.
      await expect(
        listStage(archive.zip, DEFAULT_ZIP_LIMITS, {
          size: zip.length,
          limits: DEFAULT_ZIP_LIMITS,
          refused: 'why',
        }),
      ).rejects.toThrow(new IngestError('why'));
    } finally {
      await closeArchive(archive);
    }
    // Made under other limits, or of an archive of another size: listed again here (a ZipFile lists once).
    const listedAgain = async (limits: typeof DEFAULT_ZIP_LIMITS, prelisted: typeof made) => {
      const again = await openArchive(ctx.services.uploadArea, objectName, zip.length, silentLog);
      try {
        return await listStage(again.zip, limits, prelisted);
      } finally {
        await closeArchive(again);
      }
    };
    await expect(listedAgain({ ...DEFAULT_ZIP_LIMITS, maxEntries: 1 }, made)).rejects.toThrow(/at most 1/);
    // (A listing with no files tells which one was used.)
    const empty = {
      size: zip.length,
      limits: DEFAULT_ZIP_LIMITS,
      listing: { names: [], fields: new Float64Array(0), skipped: [] },
    };
    expect((await listedAgain(DEFAULT_ZIP_LIMITS, empty)).files).toHaveLength(0);
    const otherLimits = { ...empty, limits: { ...DEFAULT_ZIP_LIMITS, maxRatio: 2 } };
    expect((await listedAgain(DEFAULT_ZIP_LIMITS, otherLimits)).files).toHaveLength(2);
    expect((await listedAgain(DEFAULT_ZIP_LIMITS, { ...empty, size: 1 })).files).toHaveLength(2);
  });

  it('tells the user when the upload is not a ZIP', async () => {
    const bytes = Buffer.from('this is not a zip archive at all');
    const { objectName } = await placeArchive(ctx, ada.id, bytes);
    await expect(openArchive(ctx.services.uploadArea, objectName, bytes.length, silentLog)).rejects.toThrow(
      /not a complete ZIP archive/,
    );
  });

  it('takes only finished uploads', async () => {
    const missing = `${ada.id}/00000000-0000-4000-8000-000000000000/study.zip`;
    await expect(finishedUploadSize(ctx.services.uploadArea, missing)).rejects.toThrow(
      /missing or did not finish/,
    );
    const base = await listen(ctx);
    const zip = buildZip([{ name: 'a.dcm', data: dicom() }]);
    const objectName = `${ada.id}/${randomUUID()}/study.zip`;
    await tusUpload(base, await storageToken(ctx, ada), objectName, zip);
    expect(await finishedUploadSize(ctx.services.uploadArea, objectName)).toBe(zip.length);
  });
});
