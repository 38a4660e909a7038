import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { instanceKey } from '../../src/modules/ingest/storage-keys';
import { parseDicomHeader } from '../../src/dicom-archive/dicom-header';
import { createStudiesRepository } from '../../src/modules/studies/studies.repository';
import { crcOf } from '../../src/dicom-archive/zip-reader';
import type { TestContext } from './test-app';

/**
 * Stores and indexes DICOM files for a user with the studies module's own functions (what
 * process-study does once a ZIP is unpacked), and returns the study ids.
 */
export async function ingestFiles(
  ctx: TestContext,
  ownerId: string,
  files: Array<Buffer | string>,
): Promise<string[]> {
  const repo = createStudiesRepository(ctx.services.database.db);
  const objectName = `${ownerId}/${randomUUID()}/study.zip`;
  const { row: upload } = await repo.ensureUpload({
    ownerId,
    objectName,
    uploadType: 'regular',
    sizeBytes: 0,
  });
  const items = [];
  for (const f of files) {
    const bytes = typeof f === 'string' ? await readFile(f) : f;
    const header = parseDicomHeader(bytes, { complete: false });
    if (header.kind !== 'instance') throw new Error('not an instance');
    const storageKey = instanceKey(upload.id, header.sopInstanceUid);
    await ctx.services.storage.put(storageKey, bytes, { size: bytes.length });
    items.push({ header, sizeBytes: bytes.length, crc32: crcOf(bytes), storageKey });
  }
  const { studyIds } = await repo.commitIngest({
    uploadId: upload.id,
    ownerId,
    defaultMaxBytes: 10 * 1024 ** 3,
    items,
    summary: {},
    notification: () => ({ userId: ownerId, type: 'system', title: 'Study processed', description: 'test' }),
  });
  return studyIds;
}
