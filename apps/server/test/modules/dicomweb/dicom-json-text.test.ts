import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSeries } from '../../helpers/dicom-series';
import {
  dicomJsonText,
  jsonMemo,
  parseInstance,
  toDicomJson,
  type ParsedInstance,
} from '../../../src/modules/dicomweb/part10';

// Series metadata is written as text straight away (dicomJsonText), reusing the JSON of values the
// instances before repeated byte for byte; it must say exactly what toDicomJson says of each file.

const FIXTURES = path.resolve(__dirname, '../../../../../../shared/fixtures/dicom/pydicom');
/** What was served of toDicomJson's result: its JSON text, parsed (-0 becomes 0). */
const asServed = (json: unknown) => JSON.parse(JSON.stringify(json)) as unknown;
const opts = { bulkBase: '/dicomweb/studies/1/series/2/instances/3' };

async function fixtureFiles(): Promise<Array<{ name: string; parsed: ParsedInstance }>> {
  const out: Array<{ name: string; parsed: ParsedInstance }> = [];
  for (const dir of [FIXTURES, path.join(FIXTURES, 'charset_files')]) {
    for (const name of (await readdir(dir)).filter((n) => n.endsWith('.dcm')).sort()) {
      try {
        out.push({ name, parsed: parseInstance(await readFile(path.join(dir, name))) });
      } catch {
        // Not DICOM at all: series metadata then falls back to the index.
      }
    }
  }
  return out;
}

describe('DICOM JSON as text', () => {
  it('says what toDicomJson says of every fixture, with a memo carried from file to file', async () => {
    const files = await fixtureFiles();
    expect(files.length).toBeGreaterThan(60);
    const memo = jsonMemo();
    // Twice round: the second time every repeated value comes from the memo.
    for (const round of [1, 2]) {
      for (const { name, parsed } of files) {
        const text = dicomJsonText(parsed, opts, memo);
        expect({ name, round, json: JSON.parse(text) as unknown }).toEqual({
          name,
          round,
          json: asServed(toDicomJson(parsed, opts)),
        });
      }
    }
  });

  it('a series: values that change from slice to slice are not taken from the slice before', () => {
    const series = generateSeries({ count: 6, size: 32 });
    const memo = jsonMemo();
    const texts = series.files.map((f) => {
      const parsed = parseInstance(f.bytes);
      const text = dicomJsonText(parsed, opts, memo);
      expect(JSON.parse(text)).toEqual(asServed(toDicomJson(parsed, opts)));
      return JSON.parse(text) as Record<string, { Value?: unknown[] }>;
    });
    expect(texts.map((t) => t['00080018']!.Value![0])).toEqual(series.files.map((f) => f.sopInstanceUid));
    expect(new Set(texts.map((t) => JSON.stringify(t['00200032'])))).toHaveProperty('size', 6);
  });
});
