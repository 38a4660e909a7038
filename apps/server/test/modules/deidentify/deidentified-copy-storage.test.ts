import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDataSet } from '../../../src/dicom/data-set';
import { readInstance } from '../../../src/dicom-archive/instance-location';
import { crcOf } from '../../../src/dicom-archive/zip-reader';
import { createStudiesRepository } from '../../../src/modules/studies/studies.repository';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { startMotoS3, type LocalS3 } from '../../helpers/s3rver';
import { makeDicom, newPatient, uid } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

// A de-identified copy stores each file as its parts (the new header, then the pixel data as a view
// into the file read from storage: src/ports/storage/put-batch.ts): every stored file must be whole,
// on local disk and in S3, with the size and CRC the index records.
const backends: Array<{
  name: string;
  kind: 'fs' | 's3';
  start(): Promise<{ env: Record<string, string>; stop(): Promise<void> }>;
}> = [
  { name: 'local disk', kind: 'fs', start: async () => ({ env: {}, stop: async () => undefined }) },
  {
    name: 'S3',
    kind: 's3',
    async start() {
      const s3: LocalS3 = await startMotoS3();
      return { env: s3.env, stop: () => s3.stop() };
    },
  },
];

describe.each(backends)('a de-identified copy stored on $name', ({ kind, start }) => {
  let ctx: TestContext;
  let stop: () => Promise<void>;
  const studyUid = uid();
  const seriesUid = uid();
  // 64×64 and 256×256 16-bit images: 8 KiB and 128 KiB of pixel data.
  const files = [64, 256, 64].map((size, i) =>
    makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: i + 1, rows: size, columns: size }),
  );

  beforeAll(async () => {
    const backend = await start();
    stop = backend.stop;
    ctx = await createTestContext(backend.env);
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
    await stop?.();
  });

  it('stores every file whole, with the size and CRC it is indexed with', async () => {
    expect(ctx.services.storage.kind).toBe(kind);
    const owner = await newPatient(ctx, `copy-${randomUUID()}@example.com`);
    const [studyId] = await ingestFiles(ctx, owner.id, files);
    const copyId = await ctx.services.deidentify.makeCopy({
      userId: owner.id,
      studyId: studyId!,
      copyId: randomUUID(),
      includePdfReports: false,
    });
    expect(copyId).toBeTruthy();
    const repo = createStudiesRepository(ctx.services.database.db);
    const rows = await repo.instancesForDownload(copyId!);
    expect(rows).toHaveLength(files.length);
    const sourcePixels = new Set(
      files.map((f) => {
        const el = readDataSet(f).elements.x7fe00010!;
        return f.subarray(el.dataOffset, el.dataOffset + el.length).toString('base64');
      }),
    );
    for (const row of rows) {
      const bytes = await readInstance(ctx.services.storage, row);
      expect(bytes.length).toBe(row.sizeBytes);
      expect(crcOf(bytes) >>> 0).toBe(row.crc32! >>> 0);
      const ds = readDataSet(bytes, { dictionaryVrs: true });
      expect(ds.string('x00120062')).toBe('YES');
      const pixels = ds.elements.x7fe00010!;
      expect(pixels.dataOffset + pixels.length).toBe(bytes.length);
      expect(sourcePixels.has(bytes.subarray(pixels.dataOffset).toString('base64'))).toBe(true);
    }
  });
});
