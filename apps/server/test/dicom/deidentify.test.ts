import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DataSet } from 'dicom-parser';
import dcmjs from 'dcmjs';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDicomHeader } from '../../src/dicom-archive/dicom-header';
import { hasDicmPreamble, readDataSet } from '../../src/dicom/data-set';
import {
  deidentifyAttributesOnly,
  deidentifyInstance,
  leftOutReason,
  shiftDates,
  type DeidentifyResult,
} from '../../src/dicom/deidentify/deidentify';
import {
  concreteAction,
  createUidMap,
  dateShiftDays,
  PROFILE_EDITION,
  profileRow,
  tableAction,
} from '../../src/dicom/deidentify/profile';

/**
 * The de-identification engine (src/dicom/deidentify) on every fixture of ../shared/fixtures/dicom,
 * checked with software nobody here wrote: dcmtk's dcmdump reads every output file, dicom3tools'
 * dciodvfy finds no error in it that the original did not have.
 */

const ROOT = path.resolve('../shared/fixtures/dicom');
const DCIODVFY = '/usr/bin/dciodvfy';
const DCMDUMP = '/usr/bin/dcmdump';
const NOT_DICOM = /\.(txt|json|dump|gz|md)$|(^|\/)(LICENSE|README[^/]*|DICOMDIR[^/]*)$/;

function fixtureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...fixtureFiles(p));
    else if (!NOT_DICOM.test(p)) out.push(p);
  }
  return out;
}

const files = fixtureFiles(ROOT);
const tmp = mkdtempSync(path.join(tmpdir(), 'deid-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Files without a Part 10 header are read as the media that list them would: implicit VR little endian. */
function transferSyntaxFor(file: string, bytes: Buffer): string | undefined {
  if (hasDicmPreamble(bytes)) return undefined;
  if (/ExplVR_BigEndNoMeta/.test(file)) return '1.2.840.10008.1.2.2';
  if (/ExplVR_LitEndNoMeta/.test(file)) return '1.2.840.10008.1.2.1';
  return '1.2.840.10008.1.2';
}

/** Each folder is one copy: one UID map, so references between its files can be checked. */
const copies = new Map<string, ReturnType<typeof createUidMap>>();
const SHIFT = dateShiftDays('test-secret', 'owner-1');
const results = new Map<string, DeidentifyResult>();
for (const file of files) {
  const dir = path.dirname(file);
  if (!copies.has(dir)) copies.set(dir, createUidMap(`copy:${dir}`));
  const bytes = readFileSync(file);
  const ts = transferSyntaxFor(file, bytes);
  results.set(
    file,
    deidentifyAttributesOnly(bytes, {
      dateShiftDays: SHIFT,
      uids: copies.get(dir)!,
      ...(ts ? { transferSyntaxUid: ts } : {}),
    }),
  );
}
const deidentified = [...results.entries()].filter(([, r]) => r.kind === 'deidentified') as Array<
  [string, Extract<DeidentifyResult, { kind: 'deidentified' }>]
>;

interface Leaf {
  path: string;
  tag: string;
  vr: string;
  value: Buffer;
}

/** Every element of a data set at every depth, by path (`00100010`, `0040A730[0].0040A123`). */
function leaves(ds: DataSet, prefix = ''): Leaf[] {
  const out: Leaf[] = [];
  for (const [key, el] of Object.entries(ds.elements)) {
    const tag = key.slice(1).toUpperCase();
    const p = `${prefix}${tag}`;
    if (el.items) {
      out.push({ path: p, tag, vr: 'SQ', value: Buffer.alloc(0) });
      el.items.forEach((item, i) => {
        if (item.dataSet) out.push(...leaves(item.dataSet, `${p}[${i}].`));
      });
      continue;
    }
    const value =
      el.length > 0 && el.length !== 0xffffffff
        ? Buffer.from(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length))
        : Buffer.alloc(0);
    out.push({ path: p, tag, vr: el.vr ?? '', value });
  }
  return out;
}

function parse(file: string, bytes: Buffer): DataSet {
  const ts = transferSyntaxFor(file, bytes);
  return readDataSet(bytes, { dictionaryVrs: true, ...(ts ? { transferSyntaxUid: ts } : {}) });
}

const trimmed = (b: Buffer) => b.toString('latin1').replace(/[\0\s]+$/, '');

describe(`de-identification to ${PROFILE_EDITION}`, () => {
  it('reads the fixtures: every instance with its UIDs is de-identified, the rest is left out with a reason', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(deidentified.length).toBeGreaterThan(100);
    for (const [file, r] of results) {
      if (r.kind === 'left-out') {
        expect(r.code, file).toBe('unreadable');
        expect(r.reason.length, file).toBeGreaterThan(5);
      }
    }
    // Fixtures that are truncated, malformed or carry no SOP Instance UID.
    const out = [...results.entries()]
      .filter(([, r]) => r.kind === 'left-out')
      .map(([f]) => path.basename(f));
    expect(out).toEqual(
      expect.arrayContaining(['MR_truncated.dcm', 'rtplan_truncated.dcm', 'meta_missing_tsyntax.dcm']),
    );
  });

  it.each(deidentified.map(([f]) => [path.relative(ROOT, f)]))(
    '%s: no attribute marked D, Z, X or U keeps its value; no private group; identity removed',
    (rel) => {
      const file = path.join(ROOT, rel);
      const r = results.get(file) as Extract<DeidentifyResult, { kind: 'deidentified' }>;
      const original = leaves(parse(file, readFileSync(file)));
      const outDs = readDataSet(r.bytes, { dictionaryVrs: true });
      const after = new Map(leaves(outDs).map((l) => [l.path, l]));
      for (const o of original) {
        const group = Number.parseInt(o.tag.slice(0, 4), 16);
        if (group === 2 || o.vr === 'SQ' || trimmed(o.value) === '') continue;
        const row = profileRow(o.tag);
        if (!row) continue;
        const action = tableAction(row);
        if (!/[DZXU]/.test(action)) continue;
        const a = after.get(o.path);
        if (!a || a.value.length === 0) continue;
        expect(trimmed(a.value), `${rel} ${o.path} (${row.name}, ${action})`).not.toBe(trimmed(o.value));
      }
      for (const l of after.values()) {
        const group = Number.parseInt(l.tag.slice(0, 4), 16);
        expect(group % 2, `${rel} private ${l.path}`).toBe(0);
      }
      expect(outDs.string('x00120062')).toBe('YES');
      expect(outDs.string('x00120063')).toContain(PROFILE_EDITION);
      expect(outDs.string('x00280303')).toBe('MODIFIED');
      const codes = outDs.elements.x00120064?.items?.map((i) => i.dataSet!.string('x00080100'));
      expect(codes).toEqual(['113100', '113107', '113105']);
      expect(outDs.string('x00020003')).toBe(r.sopInstanceUid);
      expect(r.sopInstanceUid).toMatch(/^2\.25\.\d+$/);
    },
  );

  it('replaces UIDs consistently within a copy: every reference that resolved in the originals resolves in the copy', () => {
    const REFS = ['00081155', '0020000D', '0020000E', '00200052', '30060024'];
    for (const [dir] of copies) {
      const group = deidentified.filter(([f]) => path.dirname(f) === dir);
      if (group.length === 0) continue;
      const known = new Set<string>();
      const knownAfter = new Set<string>();
      const originalUids = new Set<string>();
      for (const [file, r] of group) {
        const ds = parse(file, readFileSync(file));
        for (const tag of ['x00080018', 'x0020000e', 'x0020000d', 'x00200052']) {
          const v = ds.string(tag);
          if (v) known.add(v);
        }
        const out = readDataSet(r.bytes, { dictionaryVrs: true });
        for (const tag of ['x00080018', 'x0020000e', 'x0020000d', 'x00200052']) {
          const v = out.string(tag);
          if (v) knownAfter.add(v);
        }
        for (const l of leaves(ds)) {
          const row = profileRow(l.tag);
          // ("0", as a broken fixture writes both a class and an instance UID, is no UID to look for.)
          if (
            l.vr === 'UI' &&
            row &&
            concreteAction(tableAction(row), 'UI') === 'uid' &&
            trimmed(l.value).includes('.')
          )
            originalUids.add(trimmed(l.value));
        }
      }
      for (const [file, r] of group) {
        const before = new Map(leaves(parse(file, readFileSync(file))).map((l) => [l.path, l]));
        for (const l of leaves(readDataSet(r.bytes, { dictionaryVrs: true }))) {
          if (l.vr !== 'UI') continue;
          const v = trimmed(l.value);
          // No original UID that the profile replaces survives anywhere in the copy.
          for (const u of v.split('\\'))
            expect(originalUids.has(u) && !u.startsWith('1.2.840.10008.'), `${file} ${l.path}`).toBe(false);
          if (!REFS.includes(l.tag)) continue;
          const was = before.get(l.path);
          if (was && known.has(trimmed(was.value))) expect(knownAfter.has(v), `${file} ${l.path}`).toBe(true);
        }
      }
    }
  });

  it('writes each file as parts: everything before the pixel data, then the pixel data as the very bytes it came in', () => {
    const outcome = (bytes: Uint8Array, opts: Parameters<typeof parseDicomHeader>[1]) => {
      try {
        return parseDicomHeader(bytes, opts);
      } catch (err) {
        return String(err);
      }
    };
    let views = 0;
    for (const [file, r] of deidentified) {
      expect(
        r.parts.reduce((n, p) => n + p.length, 0),
        file,
      ).toBe(r.size);
      expect(Buffer.concat(r.parts).equals(r.bytes), file).toBe(true);
      const pixels = readDataSet(r.bytes, { dictionaryVrs: true }).elements.x7fe00010;
      if (!pixels || pixels.length === 0) {
        expect(r.parts, file).toHaveLength(1);
        continue;
      }
      expect(r.parts[0]!.length, file).toBe(pixels.dataOffset);
      // What a copy's index reads back: the first part alone tells what the whole file does.
      expect(outcome(r.parts[0]!, { complete: false, fileSize: r.size }), file).toEqual(
        outcome(r.bytes, { complete: true }),
      );
      const source = readFileSync(file);
      if (!hasDicmPreamble(source) || source.includes('1.2.840.10008.1.2.1.99')) continue;
      const again = deidentifyAttributesOnly(source, { dateShiftDays: SHIFT, uids: createUidMap('views') });
      if (again.kind !== 'deidentified') continue;
      // Not a copy: a view into the bytes given.
      expect(again.parts[1]!.buffer, file).toBe(source.buffer);
      views++;
    }
    expect(views).toBeGreaterThan(20);
  });

  it('keeps the bytes of every text it keeps, whatever the character set', () => {
    const charsets = deidentified.filter(([f]) => f.includes('charset_files'));
    expect(charsets.length).toBeGreaterThan(10);
    for (const [file, r] of charsets) {
      const before = leaves(parse(file, readFileSync(file)));
      const after = new Map(leaves(readDataSet(r.bytes, { dictionaryVrs: true })).map((l) => [l.path, l]));
      expect(after.get('00080005')?.value.equals(before.find((l) => l.path === '00080005')!.value)).toBe(
        true,
      );
      for (const b of before) {
        if (
          !['LO', 'SH', 'ST', 'LT', 'UT', 'PN'].includes(b.vr) ||
          b.tag.startsWith('0002') ||
          Number.parseInt(b.tag.slice(0, 4), 16) % 2 === 1
        )
          continue;
        const row = profileRow(b.tag);
        if (row && tableAction(row) !== 'K') continue;
        expect(after.get(b.path)?.value.equals(b.value), `${file} ${b.path}`).toBe(true);
      }
    }
  });

  it.runIf(existsSync(DCMDUMP))('dcmtk reads every de-identified file', { timeout: 120_000 }, () => {
    for (const [file, r] of deidentified) {
      const out = path.join(tmp, 'dump.dcm');
      writeFileSync(out, r.bytes);
      const res = spawnSync(DCMDUMP, ['+E', '-q', out], { encoding: 'utf8' });
      expect(res.status, `${file}: ${res.stderr}`).toBe(0);
      expect(res.stderr, file).not.toMatch(/^E:/m);
    }
  });

  // dicom3tools is installed by .ci/run: CI always runs this; a machine without it skips it.
  it.runIf(existsSync(DCIODVFY) || process.env.CI)(
    'dciodvfy reports no error on a de-identified file that it did not report on the original',
    () => {
      const errors = (f: string) => {
        const res = spawnSync(DCIODVFY, [f], { encoding: 'utf8' });
        const lines = `${res.stdout}\n${res.stderr}`.split('\n').filter((l) => l.startsWith('Error'));
        // UIDs are replaced, so messages are compared with their UIDs left out.
        return new Set(
          lines.map((l) => l.replace(/UID [0-9.]+/g, 'UID <uid>').replace(/<[0-9.]+>/g, '<uid>')),
        );
      };
      expect(existsSync(DCIODVFY), 'dciodvfy (Debian dicom3tools) is installed').toBe(true);
      const failures: string[] = [];
      for (const [file, r] of deidentified) {
        let original = file;
        const bytes = readFileSync(file);
        if (!hasDicmPreamble(bytes)) continue;
        // dciodvfy reads no deflated data set: dcmtk inflates the original for it.
        if (errors(file).has('Error - Dicom dataset read failed')) {
          original = path.join(tmp, 'original.dcm');
          execFileSync('dcmconv', ['+te', file, original]);
        }
        const out = path.join(tmp, 'out.dcm');
        writeFileSync(out, r.bytes);
        const before = errors(original);
        for (const e of errors(out)) if (!before.has(e)) failures.push(`${path.relative(ROOT, file)}: ${e}`);
      }
      expect(failures).toEqual([]);
    },
    300_000,
  );
});

describe(`rows of ${PROFILE_EDITION} that earlier editions did not have`, () => {
  // Added to Table E.1-1 after 2024b (names to use, pronouns, gender identity, ethnic groups, device
  // IDs), or given a Clean Descriptors action (Requesting Service).
  const removed = {
    '00100012': { vr: 'LO', Value: ['Janie'], name: 'Name to Use' },
    '00102162': { vr: 'UC', Value: ['Basque'], name: 'Ethnic Groups' },
    '00181010': { vr: 'LO', Value: ['SC-DEVICE-42'], name: 'Secondary Capture Device ID' },
  } as const;
  // X, or C under the Clean Descriptors option a copy applies: kept unless it names the patient.
  const cleaned = {
    '00100016': { vr: 'LT', Value: ['ask for Jane, not Ms Doe'], name: 'Pronoun Comment' },
    '00321033': { vr: 'LO', Value: ['Cardiology'], name: 'Requesting Service' },
  } as const;

  it('has each in the table, with its Basic Profile and Clean Descriptors actions', () => {
    for (const [tag, { name }] of Object.entries({ ...removed, ...cleaned })) {
      expect(profileRow(tag)?.name, tag).toBe(name);
      expect(profileRow(tag)?.basic, tag).toBe('X');
    }
    for (const tag of Object.keys(cleaned)) expect(profileRow(tag)?.options.cleanDescriptors, tag).toBe('C');
  });

  it('removes them from a copy, and cleans the descriptors that name the patient', () => {
    const { DicomMetaDictionary, DicomDict } = dcmjs.data;
    const sop = DicomMetaDictionary.uid();
    const dict = new DicomDict(
      DicomMetaDictionary.denaturalizeDataset({
        FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
        MediaStorageSOPClassUID: '1.2.840.10008.5.1.4.1.1.2',
        MediaStorageSOPInstanceUID: sop,
        TransferSyntaxUID: '1.2.840.10008.1.2.1',
      }),
    );
    const elements = Object.fromEntries(
      Object.entries({ ...removed, ...cleaned }).map(([tag, { vr, Value }]) => [
        tag,
        { vr, Value: [...Value] },
      ]),
    );
    dict.dict = {
      ...DicomMetaDictionary.denaturalizeDataset({
        SOPClassUID: '1.2.840.10008.5.1.4.1.1.2',
        SOPInstanceUID: sop,
        StudyInstanceUID: DicomMetaDictionary.uid(),
        SeriesInstanceUID: DicomMetaDictionary.uid(),
        Modality: 'CT',
        PatientName: 'Doe^Jane',
      }),
      ...elements,
    };
    const original = Buffer.from(dict.write());
    const before = readDataSet(original, { dictionaryVrs: true });
    for (const tag of Object.keys(elements)) expect(before.elements[`x${tag}`], tag).toBeDefined();
    const r = deidentifyInstance(original, { dateShiftDays: -500, uids: createUidMap('policy') });
    if (r.kind !== 'deidentified') throw new Error(`not de-identified: ${r.kind}`);
    const after = readDataSet(r.bytes, { dictionaryVrs: true });
    for (const tag of Object.keys(removed)) expect(after.elements[`x${tag}`], tag).toBeUndefined();
    expect(after.string('x00100016')).not.toMatch(/Jane|Doe/);
    expect(after.string('x00321033')).toBe('Cardiology');
  });
});

describe('what a de-identified copy leaves out', () => {
  const ctx = () => ({ dateShiftDays: -500, uids: createUidMap('policy') });
  const fixture = (rel: string) => readFileSync(path.join(ROOT, 'pydicom', rel));

  it('leaves out secondary captures, ultrasound and documents without Burned In Annotation, and anything marked YES', () => {
    expect(
      leftOutReason({ sopClassUid: '1.2.840.10008.5.1.4.1.1.7', modality: 'OT', burnedIn: null })?.code,
    ).toBe('pixel-data-risk');
    expect(
      leftOutReason({ sopClassUid: '1.2.840.10008.5.1.4.1.1.6.1', modality: 'US', burnedIn: null })?.code,
    ).toBe('pixel-data-risk');
    expect(
      leftOutReason({ sopClassUid: '1.2.840.10008.5.1.4.1.1.6.1', modality: 'US', burnedIn: 'NO' }),
    ).toBeNull();
    expect(
      leftOutReason({ sopClassUid: '1.2.840.10008.5.1.4.1.1.2', modality: 'CT', burnedIn: 'YES' })?.code,
    ).toBe('burned-in');
    expect(
      leftOutReason({ sopClassUid: '1.2.840.10008.5.1.4.1.1.104.2', modality: 'DOC', burnedIn: null })?.code,
    ).toBe('document');
    expect(
      leftOutReason({ sopClassUid: '1.2.840.10008.5.1.4.1.1.104.1', modality: 'DOC', burnedIn: 'NO' })?.code,
    ).toBe('pdf-report');
    expect(
      leftOutReason({ sopClassUid: '1.2.840.10008.5.1.4.1.1.104.1', modality: 'DOC', burnedIn: null }, true),
    ).toBeNull();
    expect(
      leftOutReason({ sopClassUid: '1.2.840.10008.5.1.4.1.1.2', modality: 'CT', burnedIn: null }),
    ).toBeNull();

    const sc = deidentifyInstance(fixture('SC_rgb_rle.dcm'), ctx());
    expect(sc).toMatchObject({ kind: 'left-out', code: 'pixel-data-risk' });
    const ct = deidentifyInstance(fixture('CT_small.dcm'), ctx());
    expect(ct.kind).toBe('deidentified');
  });

  it('leaves out an instance whose Burned In Annotation is YES, and a PDF report unless asked', () => {
    const { DicomMetaDictionary, DicomDict } = dcmjs.data;
    const write = (extra: Record<string, unknown>) => {
      const sop = DicomMetaDictionary.uid();
      const dataset = {
        SOPClassUID: '1.2.840.10008.5.1.4.1.1.2',
        SOPInstanceUID: sop,
        StudyInstanceUID: DicomMetaDictionary.uid(),
        SeriesInstanceUID: DicomMetaDictionary.uid(),
        Modality: 'CT',
        PatientName: 'Doe^Jane',
        PatientID: 'MRN-1',
        ...extra,
      };
      const dict = new DicomDict(
        DicomMetaDictionary.denaturalizeDataset({
          FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
          MediaStorageSOPClassUID: dataset.SOPClassUID,
          MediaStorageSOPInstanceUID: sop,
          TransferSyntaxUID: '1.2.840.10008.1.2.1',
        }),
      );
      dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
      return Buffer.from(dict.write());
    };
    expect(deidentifyInstance(write({ BurnedInAnnotation: 'YES' }), ctx())).toMatchObject({
      kind: 'left-out',
      code: 'burned-in',
    });
    const pdf = write({ SOPClassUID: '1.2.840.10008.5.1.4.1.1.104.1', Modality: 'DOC' });
    expect(deidentifyInstance(pdf, ctx())).toMatchObject({ kind: 'left-out', code: 'pdf-report' });
    expect(deidentifyInstance(pdf, { ...ctx(), includePdfReports: true }).kind).toBe('deidentified');
    // A structured report's free text is not cleaned either: out unless reports are included.
    const sr = fixture('test-SR.dcm');
    expect(deidentifyInstance(sr, ctx())).toMatchObject({ kind: 'left-out', code: 'pdf-report' });
    expect(deidentifyInstance(sr, { ...ctx(), includePdfReports: true }).kind).toBe('deidentified');
    expect(deidentifyInstance(Buffer.from('not dicom at all'), ctx())).toMatchObject({
      kind: 'left-out',
      code: 'unreadable',
    });
  });

  it('shifts every date of one owner alike, by at least a year, and each copy gets UIDs of its own', () => {
    const a = dateShiftDays('secret', 'owner-a');
    expect(dateShiftDays('secret', 'owner-a')).toBe(a);
    expect(a).toBeLessThanOrEqual(-365);
    expect(a).toBeGreaterThanOrEqual(-3653);
    expect(dateShiftDays('other secret', 'owner-a')).not.toBe(a);
    expect(shiftDates('20240301', 'DA', -1)).toBe('20240229');
    expect(shiftDates('20240101-20240110\\20230505', 'DA', -1)).toBe('20231231-20240109\\20230504');
    expect(shiftDates('20240301101500.5+0100', 'DT', -1)).toBe('20240229101500.5+0100');
    expect(shiftDates('not a date', 'DA', -1)).toBe('');
    const one = createUidMap('copy-1');
    expect(one.map('1.2.3')).toBe(one.map('1.2.3 '));
    expect(one.map('1.2.3')).not.toBe(createUidMap('copy-2').map('1.2.3'));
    expect(one.map('1.2.3').length).toBeLessThanOrEqual(64);
  });
});
