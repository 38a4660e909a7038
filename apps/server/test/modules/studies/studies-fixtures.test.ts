import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { instances, studies } from '../../../src/db/schema/index';
import { buildZip, dcm, listen, newPatient, uploadAndProcess } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

const ROOT = '../shared/fixtures/dicom';
// dcmjs warns about character sets it cannot decode; the server decodes them, dcmjs only reads UIDs here.
dcm.log.setLevel('error');
let ctx: TestContext;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
});
afterAll(async () => {
  await ctx?.close();
});

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? walk(full) : [full];
    });
}

/** Reads UIDs with dcmjs, a reader independent of the server's. */
function uidsOf(file: string): { study: string; sop: string } {
  const b = readFileSync(file);
  const ds = dcm.data.DicomMessage.readFile(
    b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer,
    { ignoreErrors: true },
  );
  const n = dcm.data.DicomMetaDictionary.naturalizeDataset(ds.dict) as {
    StudyInstanceUID: string;
    SOPInstanceUID: string;
  };
  return { study: n.StudyInstanceUID, sop: n.SOPInstanceUID };
}

it('ingests or skips with a reason every fixture file, decoding names by their character set', async () => {
  const files = walk(ROOT);
  expect(files.length).toBeGreaterThan(150);
  const zip = buildZip(
    files.map((f) => ({ name: path.relative(ROOT, f), data: readFileSync(f), method: 'deflate' as const })),
  );
  const patient = await newPatient(ctx, 'fixtures@example.com');
  const { upload } = await uploadAndProcess(ctx, base, patient, zip);
  expect(upload.status).toBe('completed');
  const summary = upload.summary as {
    files: number;
    instances: number;
    unchanged: number;
    skipped: number;
    skipReasons: Record<string, number>;
  };
  expect(summary.files).toBe(files.length);
  expect(summary.instances + summary.skipped).toBe(files.length);
  expect(summary.unchanged).toBe(0);

  // Files without a DICM preamble: README/LICENSE/JSON/dumps and the four preamble-less datasets.
  const noPreamble = files.filter((f) => {
    const b = readFileSync(f);
    return b.length < 132 || b.subarray(128, 132).toString('latin1') !== 'DICM';
  });
  expect(summary.skipReasons['not a DICOM file']! + summary.skipReasons['nested archive (not opened)']!).toBe(
    noPreamble.length,
  );
  expect(summary.skipReasons['nested archive (not opened)']).toBe(1); // zipMR.gz
  expect(summary.skipReasons['truncated or malformed DICOM file']).toBeGreaterThanOrEqual(2); // MR_truncated, rtplan_truncated
  expect(summary.skipReasons['DICOMDIR (media index, read)']).toBeGreaterThanOrEqual(7);
  const known = [
    'not a DICOM file',
    'nested archive (not opened)',
    'truncated or malformed DICOM file',
    'DICOMDIR (media index, read)',
    'duplicate instance in the upload',
    'DICOM file without Study, Series or SOP Instance UID',
    'DICOM file with an incomplete file meta header',
    'malformed DICOM file',
  ];
  for (const reason of Object.keys(summary.skipReasons)) expect(known).toContain(reason);

  const { db } = ctx.services.database;
  const rows = await db.select().from(studies).where(eq(studies.ownerId, patient.id));

  // Patient names by Specific Character Set (0008,0005), ISO 2022 escapes included.
  const expected = JSON.parse(
    readFileSync(`${ROOT}/pydicom/charset_files/expected-names.json`, 'utf8'),
  ) as Record<string, { PatientName: string | null }>;
  for (const [file, { PatientName }] of Object.entries(expected)) {
    if (PatientName === null) continue;
    const { study } = uidsOf(`${ROOT}/pydicom/charset_files/${file}`);
    const row = rows.find((r) => r.studyInstanceUid === study);
    expect(row, file).toBeDefined();
    // Files sharing a study keep the first name seen; each listed name must be one of the study's files' names.
    const sameStudy = Object.entries(expected).filter(
      ([f]) => uidsOf(`${ROOT}/pydicom/charset_files/${f}`).study === study,
    );
    expect(
      sameStudy.map(([, v]) => v.PatientName),
      file,
    ).toContain(row!.patientName);
    if (sameStudy.length === 1) expect(row!.patientName, file).toBe(PatientName);
  }

  // Every image of the CD layouts is indexed.
  const cdFiles = files.filter(
    (f) => /dicomdirtests\/(77654033|98892001|98892003|TINY_ALPHA)\//.test(f) && !/README|DICOMDIR$/.test(f),
  );
  expect(cdFiles.length).toBeGreaterThan(50);
  const sops = cdFiles.map((f) => uidsOf(f).sop);
  const indexed = await db
    .select({ sop: instances.sopInstanceUid })
    .from(instances)
    .where(inArray(instances.sopInstanceUid, sops));
  expect(new Set(indexed.map((i) => i.sop))).toEqual(new Set(sops));

  // Known metadata of a few plain files.
  const ct = rows.find((r) => r.studyInstanceUid === uidsOf(`${ROOT}/pydicom/CT_small.dcm`).study)!;
  expect(ct).toMatchObject({
    patientName: 'CompressedSamples^CT1',
    modalities: ['CT'],
    studyDate: '2004-01-19',
  });
  // Every indexed byte is charged, and every object exists with its size.
  const all = await db
    .select()
    .from(instances)
    .where(
      inArray(
        instances.studyId,
        rows.map((r) => r.id),
      ),
    );
  expect(all).toHaveLength(summary.instances);
  for (const i of all.slice(0, 20))
    expect((await ctx.services.storage.stat(i.storageKey))?.size).toBe(i.sizeBytes);
});
