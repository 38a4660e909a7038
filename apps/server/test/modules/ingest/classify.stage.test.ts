import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassifyStage, DICOMDIR_READ } from '../../../src/modules/ingest/classify.stage';
import { ReadStage } from '../../../src/modules/ingest/read.stage';
import { FIXTURES, buildZip, makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { openRun, type OpenedRun } from '../../helpers/ingest-run';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
const opened: OpenedRun[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-classify-stage@example.com');
});
afterAll(async () => {
  for (const o of opened) await o.close();
  await ctx?.close();
});

/** Reads and classifies every file of the archive in the listing's order, as the pipeline does. */
async function classifyAll(zip: Buffer, maxDecodedBytes?: number) {
  const o = await openRun(ctx, ada.id, zip);
  opened.push(o);
  const reader = new ReadStage(o.run.archive, o.files);
  const classifier = new ClassifyStage(o.run, maxDecodedBytes);
  const headers = [];
  for (const [i, file] of o.files.entries()) {
    const ts = classifier.referenceOf(file);
    headers.push({
      name: file.name,
      ts,
      header: classifier.classify(file, await reader.read(i, ts === undefined), ts),
    });
  }
  return { headers, run: o.run };
}

describe('classify stage', () => {
  it('finds instance headers and counts whatever is not an instance', async () => {
    const studyUid = uid();
    const sopUid = uid();
    const { headers, run } = await classifyAll(
      buildZip([
        { name: 'a.dcm', data: makeDicom({ studyUid, seriesUid: uid(), sopUid }) },
        { name: 'notes.txt', data: Buffer.from('hello') },
        { name: 'nested.zip', data: buildZip([{ name: 'x', data: Buffer.from('x') }]) },
      ]),
    );
    expect(headers[0]!.header).toMatchObject({ studyInstanceUid: studyUid, sopInstanceUid: sopUid });
    expect(headers[1]!.header).toBeNull();
    expect(headers[2]!.header).toBeNull();
    expect(run.summary.skipped).toBe(2);
    expect(Object.values(run.summary.skipReasons).reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('skips an instance that declares a larger image than allowed', async () => {
    const big = makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), rows: 64, columns: 64 });
    const { headers, run } = await classifyAll(buildZip([{ name: 'big.dcm', data: big }]), 1024);
    expect(headers[0]!.header).toBeNull();
    expect(run.summary.skipped).toBe(1);
  });

  it('reads a DICOMDIR first and uses its references for the files it lists', async () => {
    const dir = `${FIXTURES}/dicomdirtests`;
    const images = ['77654033/CR1/6154', '77654033/CR2/6247'];
    const { headers, run } = await classifyAll(
      buildZip([
        ...images.map((name) => ({ name, data: readFileSync(`${dir}/${name}`) })),
        { name: 'DICOMDIR', data: readFileSync(`${dir}/DICOMDIR`) },
      ]),
    );
    expect(headers[0]).toMatchObject({ name: 'DICOMDIR', header: null });
    expect(run.summary.skipReasons[DICOMDIR_READ]).toBe(1);
    for (const h of headers.slice(1)) {
      expect(h.ts).not.toBeUndefined();
      expect(h.header?.sopInstanceUid).toBeTruthy();
    }
  });
});
