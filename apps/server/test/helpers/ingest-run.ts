import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { ownerQuota } from '../../src/modules/ingest/charge.stage';
import { IngestRun } from '../../src/modules/ingest/ingest-run';
import { closeArchive, listStage, openArchive } from '../../src/modules/ingest/list.stage';
import { planStorage } from '../../src/modules/ingest/store.stage';
import { createStudiesRepository, type UploadRow } from '../../src/modules/studies/studies.repository';
import { DEFAULT_ZIP_LIMITS, type ZipFileEntry } from '../../src/dicom-archive/zip-reader';
import type { TestContext } from './test-app';

export const silentLog = pino({ level: 'silent' });

/**
 * Puts a finished archive in the app's own upload area (local disk), as tus leaves it, and creates its
 * upload record; the stages then open it as processing does.
 */
export async function placeArchive(
  ctx: TestContext,
  ownerId: string,
  zip: Buffer,
): Promise<{ objectName: string; upload: UploadRow }> {
  const objectName = `${ownerId}/${randomUUID()}/study.zip`;
  const file = ctx.services.uploadArea.localPath!(objectName);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, zip);
  const repo = createStudiesRepository(ctx.services.database.db);
  const { row } = await repo.ensureUpload({
    ownerId,
    objectName,
    uploadType: 'regular',
    sizeBytes: zip.length,
  });
  return { objectName, upload: row };
}

export interface OpenedRun {
  run: IngestRun;
  files: ZipFileEntry[];
  close(): Promise<void>;
}

/**
 * The state a processing run of `zip` has once it is listed (as ingest-pipeline.ts builds it): the
 * archive open from the upload area, the owner's quota, the storage plan.
 */
export async function openRun(ctx: TestContext, ownerId: string, zip: Buffer): Promise<OpenedRun> {
  const { objectName, upload } = await placeArchive(ctx, ownerId, zip);
  const { uploadArea, storage, users, config } = ctx.services;
  const quota = await ownerQuota(users, ownerId, config.defaultMaxStorageGB);
  const archive = await openArchive(uploadArea, objectName, zip.length, silentLog);
  const listing = await listStage(archive.zip, DEFAULT_ZIP_LIMITS);
  const plan = planStorage({ storage, uploadArea }, objectName, listing.files);
  const run = new IngestRun(upload, silentLog, archive, quota, plan);
  return { run, files: listing.files, close: () => closeArchive(archive) };
}
