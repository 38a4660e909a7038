import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeArchive,
  finishedUploadSize,
  listStage,
  openArchive,
} from '../../../src/modules/ingest/list.stage';
import { DEFAULT_ZIP_LIMITS, IngestError } from '../../../src/dicom-archive/zip-reader';
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
      expect(listing.skipped).toEqual(['encrypted file']);
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
