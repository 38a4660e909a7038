import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifications, studies } from '../../../src/db/schema/index';
import { indexStage } from '../../../src/modules/ingest/index.stage';
import { instanceKey } from '../../../src/modules/ingest/storage-keys';
import { parseDicomHeader } from '../../../src/dicom-archive/dicom-header';
import {
  createStudiesRepository,
  type StudiesRepository,
} from '../../../src/modules/studies/studies.repository';
import { crcOf, IngestError } from '../../../src/dicom-archive/zip-reader';
import { openRun } from '../../helpers/ingest-run';
import { buildZip, makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
let repo: StudiesRepository;

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-index-stage@example.com');
  repo = createStudiesRepository(ctx.services.database.db);
});
afterAll(async () => {
  await ctx?.close();
});

const deps = () => ({ repo, defaultMaxStorageGB: ctx.services.config.defaultMaxStorageGB });

describe('index stage', () => {
  it('indexes the run in one go: studies, the upload completed with its summary, the notification', async () => {
    const studyUid = uid();
    const bytes = makeDicom({ studyUid, seriesUid: uid(), sopUid: uid() });
    const o = await openRun(ctx, ada.id, buildZip([{ name: 'a.dcm', data: bytes }]));
    try {
      const { run } = o;
      const header = parseDicomHeader(bytes, { complete: true });
      if (header.kind !== 'instance') throw new Error('not an instance');
      const key = instanceKey(run.upload.id, header.sopInstanceUid);
      await ctx.services.storage.put(key, bytes, { size: bytes.length });
      run.items.push({
        header,
        sizeBytes: bytes.length,
        crc32: crcOf(bytes),
        storageKey: key,
        storageOffset: 0,
      });
      run.summary.files = 2;
      run.summary.instances = 1;
      run.skip('not a DICOM file');
      await indexStage(run, deps());

      const { db } = ctx.services.database;
      const [study] = await db.select().from(studies).where(eq(studies.studyInstanceUid, studyUid));
      expect(study?.ownerId).toBe(ada.id);
      const upload = await repo.findUpload(run.upload.id);
      expect(upload?.status).toBe('completed');
      expect(upload?.summary).toMatchObject({ files: 2, instances: 1, skipped: 1 });
      expect((upload?.summary as { stages: Record<string, number> }).stages.total).toBeGreaterThanOrEqual(0);
      const notes = await db.select().from(notifications).where(eq(notifications.userId, ada.id));
      expect(notes.map((n) => n.title)).toContain('Study processed');
      expect(notes.find((n) => n.title === 'Study processed')?.description).toMatch(
        /1 study with 1 image is ready in My Studies\. 1 file was skipped \(1 file: not a DICOM file\)\./,
      );
    } finally {
      await o.close();
    }
  });

  it('fails a run that found no instance, saying why', async () => {
    const o = await openRun(ctx, ada.id, buildZip([{ name: 'a.txt', data: Buffer.from('x') }]));
    try {
      o.run.summary.files = 2;
      o.run.skip('not a DICOM file', 'DOE_JOHN/a.txt');
      o.run.skip('not a DICOM file', 'DOE_JOHN/b.txt');
      const refused = await indexStage(o.run, deps()).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(IngestError);
      expect((refused as IngestError).message).toBe(
        'No DICOM images were found in your upload. 2 files were skipped (2 files: not a DICOM file — DOE_JOHN/a.txt, DOE_JOHN/b.txt).',
      );
      // The log says why without the names: a folder may be named after the patient.
      expect((refused as IngestError).loggedMessage).toBe(
        'No DICOM images were found in your upload. 2 files were skipped (2 files: not a DICOM file).',
      );
      o.run.summary.files = 0;
      await expect(indexStage(o.run, deps())).rejects.toThrow(
        'The upload is empty: no files were found in the ZIP.',
      );
      expect((await repo.findUpload(o.run.upload.id))?.status).not.toBe('completed');
    } finally {
      await o.close();
    }
  });
});
