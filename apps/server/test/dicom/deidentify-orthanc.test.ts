import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSet } from 'dicom-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDataSet } from '../../src/dicom/data-set';
import { deidentifyInstance } from '../../src/dicom/deidentify/deidentify';
import { createUidMap, dateShiftDays } from '../../src/dicom/deidentify/profile';
import { orthancAvailable, startOrthanc, type Orthanc } from '../helpers/orthanc';

/**
 * Our PS3.15 engine against Orthanc's anonymizer, software nobody here wrote: on the same files,
 * every attribute Orthanc removes or empties, at every depth, is removed, emptied or replaced by us
 * too. Orthanc removes nothing we keep, except what is listed below with the reason.
 */

const ROOT = path.resolve('../shared/fixtures/dicom/pydicom');
/** Copied by our engine, with nested sequences (RT, SR, waveform) and private attributes (CT, ECG). */
const FIXTURES = [
  'CT_small.dcm',
  'MR_small.dcm',
  'rtplan.dcm',
  'rtdose.dcm',
  'test-SR.dcm',
  'waveform_ecg.dcm',
];
/** Newest first: the newest edition of the standard the installed Orthanc knows is used. */
const DICOM_VERSIONS = ['2023b', '2021b', '2017c'];

/**
 * What Orthanc removes or empties and we keep on purpose, by tag: the tag itself and everything
 * inside it, at any depth. Each is what the options we apply (or the newer edition's table) say;
 * docs/decisions.md, De-identification, has the same list.
 */
const TIMES = 'Modified Dates option (C): dates are shifted, times kept';
const DESCRIPTOR = 'Clean Descriptors option (C): kept unless it contains a word that identifies';
const KEPT_ON_PURPOSE: Record<string, string> = {
  '00080030': TIMES, // Study Time
  '00080031': TIMES, // Series Time
  '00080032': TIMES, // Acquisition Time
  '00080033': TIMES, // Content Time
  '300A0007': TIMES, // RT Plan Time
  // Timezone Offset From UTC: with times kept, the offset keeps their meaning (Modified Dates option C).
  '00080201': TIMES,
  '00081030': DESCRIPTOR, // Study Description
  '0008103E': DESCRIPTOR, // Series Description
  '00180010': DESCRIPTOR, // Contrast/Bolus Agent
  '00204000': DESCRIPTOR, // Image Comments
  '300A0002': DESCRIPTOR, // RT Plan Label
  '300A0003': DESCRIPTOR, // RT Plan Name
  '300A0016': DESCRIPTOR, // Dose Reference Description
  // Content Sequence: X in the 2021b table Orthanc knows, D in 2024b and 2025e; D on a sequence keeps it and
  // applies the profile to its items, so attributes the table does not list (Text Value) stay.
  '0040A730': 'Basic Profile 2025e (D): the structured report content is kept, the profile applied inside',
};

interface Leaf {
  vr: string;
  value: Buffer;
  items: number;
}

/** Every element at every depth by path (`00100010`, `0040A730[0].0040A123`); file meta left out. */
function leaves(ds: DataSet, prefix = '', out = new Map<string, Leaf>()): Map<string, Leaf> {
  for (const [key, el] of Object.entries(ds.elements)) {
    const tag = key.slice(1).toUpperCase();
    if (tag.startsWith('0002')) continue;
    const p = `${prefix}${tag}`;
    if (el.items) {
      out.set(p, { vr: 'SQ', value: Buffer.alloc(0), items: el.items.length });
      el.items.forEach((item, i) => {
        if (item.dataSet) leaves(item.dataSet, `${p}[${i}].`, out);
      });
      continue;
    }
    const value =
      el.length > 0 && el.length !== 0xffffffff
        ? Buffer.from(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length))
        : Buffer.alloc(0);
    out.set(p, { vr: el.vr ?? '', value, items: 0 });
  }
  return out;
}

const read = (bytes: Uint8Array) => leaves(readDataSet(bytes, { dictionaryVrs: true }));
/** Text values compare without their padding. */
const text = (b: Buffer) => b.toString('latin1').replace(/[\0 ]+$/, '');
const isEmpty = (l: Leaf) => (l.vr === 'SQ' ? l.items === 0 : text(l.value) === '');
/** Whether the path is, or is inside, an attribute we keep on purpose. */
const onPurpose = (p: string) => (p.match(/[0-9A-F]{8}/g) ?? []).some((tag) => tag in KEPT_ON_PURPOSE);

/** The paths Orthanc removed or emptied that were there with a value in the original. */
function removedOrEmptied(original: Map<string, Leaf>, result: Map<string, Leaf>): string[] {
  const out: string[] = [];
  for (const [p, leaf] of original) {
    if (isEmpty(leaf)) continue;
    const after = result.get(p);
    if (!after || isEmpty(after)) out.push(p);
  }
  return out;
}

/** Still there with the original's value: nothing of it was removed, emptied or replaced. */
function kept(p: string, original: Map<string, Leaf>, ours: Map<string, Leaf>): boolean {
  const before = original.get(p)!;
  const after = ours.get(p);
  if (!after || isEmpty(after)) return false;
  if (before.vr === 'SQ') {
    // A sequence is kept when anything inside it with a value still has that value.
    const inside = [...original.keys()].filter((k) => k.startsWith(`${p}[`));
    return inside.some((k) => !isEmpty(original.get(k)!) && kept(k, original, ours));
  }
  return text(before.value) === text(after.value);
}

describe.skipIf(!orthancAvailable)("de-identification compared with Orthanc's anonymizer", () => {
  let orthanc: Orthanc;
  let version = '';
  beforeAll(async () => {
    orthanc = await startOrthanc();
  });
  afterAll(async () => {
    await orthanc?.stop();
  });

  /** Orthanc's anonymized copy of a file, with the newest DicomVersion it accepts. */
  async function anonymizeInOrthanc(bytes: Buffer): Promise<Buffer> {
    const uploaded = await fetch(`${orthanc.url}/instances`, { method: 'POST', body: bytes });
    expect(uploaded.status).toBe(200);
    const { ID } = (await uploaded.json()) as { ID: string };
    for (const dicomVersion of version ? [version] : DICOM_VERSIONS) {
      const res = await fetch(`${orthanc.url}/instances/${ID}/anonymize`, {
        method: 'POST',
        body: JSON.stringify({ DicomVersion: dicomVersion, Force: true, KeepPrivateTags: false }),
      });
      if (res.status === 400 && !version) continue;
      expect(res.status).toBe(200);
      version = dicomVersion;
      return Buffer.from(await res.arrayBuffer());
    }
    throw new Error(`Orthanc accepts none of ${DICOM_VERSIONS.join(', ')}`);
  }

  it.each(FIXTURES)('%s: Orthanc removes or empties nothing that we keep', async (name) => {
    const bytes = readFileSync(path.join(ROOT, name));
    const ours = deidentifyInstance(bytes, {
      dateShiftDays: dateShiftDays('test-secret', 'owner-1'),
      uids: createUidMap(`orthanc:${name}`),
      // Reports are compared as the patient gets them when including reports knowingly.
      includePdfReports: true,
    });
    expect(ours.kind).toBe('deidentified');
    if (ours.kind !== 'deidentified') return;
    const original = read(bytes);
    const theirs = read(await anonymizeInOrthanc(bytes));
    const mine = read(ours.bytes);

    const orthancRemoved = removedOrEmptied(original, theirs);
    // The comparison means something only if Orthanc did remove things, private ones included.
    expect(orthancRemoved.length).toBeGreaterThan(0);
    const weKeep = orthancRemoved.filter((p) => kept(p, original, mine) && !onPurpose(p));
    expect(
      weKeep.map((p) => `${p} ${text(original.get(p)!.value)}`),
      `DicomVersion ${version}`,
    ).toEqual([]);
  });
});
