// The DICOMDIR's record types (src/modules/exports/dicomdir.ts, dicomdir-record-keys.ts) on real
// structured reports, RT objects and a 12-lead ECG from ../shared/fixtures/dicom, and on presentation
// states made from a fixture image, read back by dicom-parser and dcmtk and checked against the Basic
// Directory IOD by dicom3tools' dciodvfy.
import { spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import dcmjs from 'dcmjs';
import { describe, expect, it } from 'vitest';
import { readDataSet } from '../../../src/dicom/data-set';
import { ascii, uid } from '../../../src/dicom/values';
import {
  buildDicomdir,
  directoryKeysOf,
  recordTypeOf,
  type InstanceKeys,
} from '../../../src/modules/exports/dicomdir';

const FIXTURES = path.resolve(import.meta.dirname, '../../../../../../shared/fixtures/dicom/pydicom');
const hasTool = (cmd: string) => spawnSync('which', [cmd]).status === 0;
const run = (cmd: string, args: string[], cwd: string) => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
};

const fallback = (n: number): InstanceKeys => ({
  patientId: null,
  patientName: null,
  studyInstanceUid: `1.2.3.${n}`,
  studyDate: null,
  studyTime: null,
  studyDescription: null,
  studyId: null,
  accessionNumber: null,
  seriesInstanceUid: `1.2.3.${n}.1`,
  modality: null,
  seriesNumber: null,
  sopClassUid: null,
  sopInstanceUid: `1.2.3.${n}.1.1`,
  transferSyntaxUid: null,
  instanceNumber: null,
});

describe('record types', () => {
  it('names each kind of instance as PS3.3 Table F.4-1 does', () => {
    expect(recordTypeOf('1.2.840.10008.5.1.4.1.1.2')).toBe('IMAGE');
    expect(recordTypeOf('1.2.840.10008.5.1.4.1.1.88.33')).toBe('SR DOCUMENT');
    expect(recordTypeOf('1.2.840.10008.5.1.4.1.1.88.59')).toBe('KEY OBJECT DOC');
    expect(recordTypeOf('1.2.840.10008.5.1.4.1.1.104.1')).toBe('ENCAP DOC');
    expect(recordTypeOf(null)).toBe('IMAGE');
  });

  it.skipIf(!hasTool('dcmdump'))(
    'gives structured reports SR DOCUMENT records with their concept name and flags, which dcmtk and dciodvfy accept',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'dicomdir-sr-'));
      try {
        const files = [];
        for (const [i, name] of ['test-SR.dcm', 'reportsi.dcm'].entries()) {
          const bytes = await readFile(path.join(FIXTURES, name));
          const fileId = ['DICOM', `SR${i + 1}`];
          await mkdir(path.join(dir, 'DICOM'), { recursive: true });
          await writeFile(path.join(dir, ...fileId), bytes);
          files.push({ fileId, keys: directoryKeysOf(bytes, fallback(i)) });
        }
        await writeFile(path.join(dir, 'DICOMDIR'), buildDicomdir(files));
        const dump = run('dcmdump', ['+M', 'DICOMDIR'], dir);
        expect(dump).not.toMatch(/^[EW]:/m);
        expect(dump.match(/\(0004,1430\) CS \[SR DOCUMENT\]/g)).toHaveLength(2);
        expect(dump).toMatch(/\(0040,a043\) SQ/i);
        expect(dump).toMatch(/\(0040,a491\) CS \[(COMPLETE|PARTIAL)\]/i);
        expect(dump).toMatch(/\(0040,a493\) CS \[(VERIFIED|UNVERIFIED)\]/i);
        if (hasTool('dciodvfy')) {
          const v = run('dciodvfy', ['DICOMDIR'], dir);
          expect(v).toContain('BasicDirectory');
          expect(v).not.toMatch(/^Error/m);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

// ---- Presentation states, RT objects and waveforms (PS3.3 F.5.19–F.5.24) ----

const CT_IMAGE = 'CT_small.dcm';
const GSPS = '1.2.840.10008.5.1.4.1.1.11.1';
const BLENDING_PS = '1.2.840.10008.5.1.4.1.1.11.4';
const RT_BEAMS_TREATMENT_RECORD = '1.2.840.10008.5.1.4.1.1.481.4';
const { DicomMetaDictionary, DicomDict } = dcmjs.data;

/** The DICOMDIR's records, read back with dicom-parser: type, referenced SOP instance, data set. */
function recordsOf(dicomdir: Buffer) {
  const ds = readDataSet(dicomdir);
  return (ds.elements.x00041220?.items ?? []).map((it) => {
    const r = it.dataSet!;
    return { type: ascii(r, 'x00041430'), sopInstanceUid: uid(r, 'x00041511'), ds: r };
  });
}

/** What a presentation state written here refers to: an image of the fixtures. */
async function imageReference(name: string) {
  const ds = readDataSet(await readFile(path.join(FIXTURES, name)));
  return {
    studyInstanceUid: uid(ds, 'x0020000d')!,
    seriesInstanceUid: uid(ds, 'x0020000e')!,
    sopClassUid: uid(ds, 'x00080016')!,
    sopInstanceUid: uid(ds, 'x00080018')!,
    patientId: ascii(ds, 'x00100020')!,
    patientName: ascii(ds, 'x00100010')!,
  };
}

/** A Part 10 file written with dcmjs, as the project's synthetic series are (src/dicom/synthetic-series.ts). */
function writeWithDcmjs(dataset: Record<string, unknown>): Buffer {
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: dataset.SOPClassUID,
    MediaStorageSOPInstanceUID: dataset.SOPInstanceUID,
    TransferSyntaxUID: '1.2.840.10008.1.2.1',
    ImplementationClassUID: '2.25.1234567890',
  };
  const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
  return Buffer.from(dict.write());
}

type ImageRef = Awaited<ReturnType<typeof imageReference>>;

/** Patient, study, series and equipment attributes of a presentation state on `ref`'s study. */
const presentationHeader = (ref: ImageRef, sopClassUid: string, label: string) => ({
  SOPClassUID: sopClassUid,
  SOPInstanceUID: DicomMetaDictionary.uid(),
  StudyDate: '20040119',
  StudyTime: '072730',
  AccessionNumber: '',
  Modality: 'PR',
  Manufacturer: '',
  ReferringPhysicianName: '',
  PatientName: ref.patientName,
  PatientID: ref.patientId,
  PatientBirthDate: '',
  PatientSex: '',
  StudyInstanceUID: ref.studyInstanceUid,
  SeriesInstanceUID: DicomMetaDictionary.uid(),
  StudyID: '1',
  SeriesNumber: '90',
  InstanceNumber: '1',
  ContentLabel: label,
  ContentDescription: 'Window for the lesion',
  PresentationCreationDate: '20240301',
  PresentationCreationTime: '101500',
  ContentCreatorName: 'Reader^Ruth',
});

const referencedImage = (ref: ImageRef) => ({
  ReferencedSOPClassUID: ref.sopClassUid,
  ReferencedSOPInstanceUID: ref.sopInstanceUid,
});

/** A Grayscale Softcopy Presentation State on the CT fixture, made by dcmtk's dcmpsmk. */
async function presentationStateByDcmpsmk(dir: string): Promise<Buffer> {
  const out = path.join(dir, 'gsps.dcm');
  const log = run('dcmpsmk', [path.join(FIXTURES, CT_IMAGE), out], dir);
  const bytes = await readFile(out).catch(() => {
    throw new Error(`dcmpsmk made no presentation state: ${log}`);
  });
  await rm(out);
  return bytes;
}

/**
 * A Grayscale Softcopy Presentation State on the CT fixture written with dcmjs (Patient, General
 * Study, Presentation Series, General Equipment, Presentation State Identification and Relationship,
 * Displayed Area and Softcopy Presentation LUT modules). It stands in for dcmpsmk's where dcmtk is
 * missing, and is listed beside it otherwise.
 */
function presentationStateWithDcmjs(ref: ImageRef): Buffer {
  return writeWithDcmjs({
    ...presentationHeader(ref, GSPS, 'LESION'),
    ReferencedSeriesSequence: [
      { ReferencedImageSequence: [referencedImage(ref)], SeriesInstanceUID: ref.seriesInstanceUid },
    ],
    DisplayedAreaSelectionSequence: [
      {
        ReferencedImageSequence: [referencedImage(ref)],
        DisplayedAreaTopLeftHandCorner: [1, 1],
        DisplayedAreaBottomRightHandCorner: [128, 128],
        PresentationSizeMode: 'SCALE TO FIT',
        PresentationPixelSpacing: [1, 1],
      },
    ],
    PresentationLUTShape: 'IDENTITY',
  });
}

/**
 * A Blending Softcopy Presentation State (no tool here makes one): an MR image over the CT image,
 * with only the modules the record reads (Presentation State Identification, Blending).
 */
function blendingPresentationState(under: ImageRef, over: ImageRef): Buffer {
  const blended = (ref: ImageRef, position: string) => ({
    ReferencedSeriesSequence: [
      { ReferencedImageSequence: [referencedImage(ref)], SeriesInstanceUID: ref.seriesInstanceUid },
    ],
    StudyInstanceUID: ref.studyInstanceUid,
    BlendingPosition: position,
  });
  return writeWithDcmjs({
    ...presentationHeader(under, BLENDING_PS, 'FUSION'),
    BlendingSequence: [blended(under, 'UNDERLYING'), blended(over, 'SUPERIMPOSED')],
    RelativeOpacity: 0.5,
  });
}

/** An RT Beams Treatment Record (no fixture has one), with the RT General Treatment Record Module only. */
function treatmentRecord(): Buffer {
  return writeWithDcmjs({
    SOPClassUID: RT_BEAMS_TREATMENT_RECORD,
    SOPInstanceUID: DicomMetaDictionary.uid(),
    StudyDate: '20240302',
    StudyTime: '080000',
    Modality: 'RTRECORD',
    PatientName: 'Treated^Patient',
    PatientID: 'RT-1',
    StudyInstanceUID: DicomMetaDictionary.uid(),
    SeriesInstanceUID: DicomMetaDictionary.uid(),
    StudyID: '1',
    SeriesNumber: '1',
    InstanceNumber: '3',
    TreatmentDate: '20240302',
    TreatmentTime: '081500',
    ReferencedRTPlanSequence: [],
  });
}

describe('presentation states, RT objects and waveforms', () => {
  it('have the record types of PS3.3 F.5 by SOP class; RT Image and waveform presentation states stay IMAGE', () => {
    const expected: Array<[string, string]> = [
      [GSPS, 'PRESENTATION'],
      ['1.2.840.10008.5.1.4.1.1.11.2', 'PRESENTATION'],
      ['1.2.840.10008.5.1.4.1.1.11.3', 'PRESENTATION'],
      [BLENDING_PS, 'PRESENTATION'],
      ['1.2.840.10008.5.1.4.1.1.11.5', 'PRESENTATION'],
      ['1.2.840.10008.5.1.4.1.1.11.12', 'PRESENTATION'],
      ['1.2.840.10008.5.1.4.1.1.481.2', 'RT DOSE'],
      ['1.2.840.10008.5.1.4.1.1.481.3', 'RT STRUCTURE SET'],
      ['1.2.840.10008.5.1.4.1.1.481.5', 'RT PLAN'],
      ['1.2.840.10008.5.1.4.1.1.481.8', 'RT PLAN'],
      [RT_BEAMS_TREATMENT_RECORD, 'RT TREAT RECORD'],
      ['1.2.840.10008.5.1.4.1.1.481.6', 'RT TREAT RECORD'],
      ['1.2.840.10008.5.1.4.1.1.481.7', 'RT TREAT RECORD'],
      ['1.2.840.10008.5.1.4.1.1.481.9', 'RT TREAT RECORD'],
      ['1.2.840.10008.5.1.4.1.1.9.1.1', 'WAVEFORM'],
      ['1.2.840.10008.5.1.4.1.1.9.1.2', 'WAVEFORM'],
      ['1.2.840.10008.5.1.4.1.1.9.1.3', 'WAVEFORM'],
      ['1.2.840.10008.5.1.4.1.1.9.2.1', 'WAVEFORM'],
      ['1.2.840.10008.5.1.4.1.1.9.3.1', 'WAVEFORM'],
      ['1.2.840.10008.5.1.4.1.1.9.4.1', 'WAVEFORM'],
      ['1.2.840.10008.5.1.4.1.1.9.5.1', 'WAVEFORM'],
      ['1.2.840.10008.5.1.4.1.1.9.6.1', 'WAVEFORM'],
      ['1.2.840.10008.5.1.4.1.1.481.1', 'IMAGE'], // RT Image
      ['1.2.840.10008.5.1.4.1.1.9.100.1', 'IMAGE'], // Waveform Presentation State
    ];
    for (const [sopClass, type] of expected)
      expect([sopClass, recordTypeOf(sopClass)]).toEqual([sopClass, type]);
  });

  it('give real RT fixtures, a 12-lead ECG, a GSPS and a blending state their own records and keys, which dciodvfy accepts', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'dicomdir-objects-'));
    try {
      const ct = await imageReference(CT_IMAGE);
      const mr = await imageReference('MR_small.dcm');
      const inputs: Array<[string, Buffer]> = [
        ['CT', await readFile(path.join(FIXTURES, CT_IMAGE))],
        ['GSPS', hasTool('dcmpsmk') ? await presentationStateByDcmpsmk(dir) : presentationStateWithDcmjs(ct)],
        ['GSPSJS', presentationStateWithDcmjs(ct)],
        ['BLEND', blendingPresentationState(ct, mr)],
        ['DOSE', await readFile(path.join(FIXTURES, 'rtdose.dcm'))],
        ['PLAN', await readFile(path.join(FIXTURES, 'rtplan.dcm'))],
        ['STRUCT', await readFile(path.join(FIXTURES, 'rtstruct.dcm'))],
        ['RECORD', treatmentRecord()],
        ['ECG', await readFile(path.join(FIXTURES, 'waveform_ecg.dcm'))],
      ];
      await mkdir(path.join(dir, 'DICOM'), { recursive: true });
      const files = [];
      const uidOf: Record<string, string> = {};
      for (const [i, [name, bytes]] of inputs.entries()) {
        const fileId = ['DICOM', name];
        await writeFile(path.join(dir, ...fileId), bytes);
        const keys = directoryKeysOf(bytes, fallback(100 + i));
        uidOf[name] = keys.sopInstanceUid;
        files.push({ fileId, keys });
      }
      const dicomdir = buildDicomdir(files);
      await writeFile(path.join(dir, 'DICOMDIR'), dicomdir);

      const records = recordsOf(dicomdir);
      const recordOf = (name: string) => {
        const r = records.find((x) => x.sopInstanceUid === uidOf[name]);
        if (!r) throw new Error(`no record for ${name}`);
        return r;
      };
      expect(Object.fromEntries(inputs.map(([name]) => [name, recordOf(name).type]))).toEqual({
        CT: 'IMAGE',
        GSPS: 'PRESENTATION',
        GSPSJS: 'PRESENTATION',
        BLEND: 'PRESENTATION',
        DOSE: 'RT DOSE',
        PLAN: 'RT PLAN',
        STRUCT: 'RT STRUCTURE SET',
        RECORD: 'RT TREAT RECORD',
        ECG: 'WAVEFORM',
      });
      // Every instance record has its Instance Number (invented where the fixture has none).
      for (const [name] of inputs) expect(ascii(recordOf(name).ds, 'x00200013'), name).toMatch(/^\d+$/);

      // PRESENTATION: creation date and time, content label, the CT image it applies to.
      for (const name of ['GSPS', 'GSPSJS']) {
        const gsps = recordOf(name).ds;
        expect(ascii(gsps, 'x00700080'), name).toBeTruthy();
        expect(ascii(gsps, 'x00700082'), name).toMatch(/^\d{8}$/);
        expect(ascii(gsps, 'x00700083'), name).toMatch(/^\d{6}/);
        expect(gsps.elements.x00700081, `${name}: Content Description (Type 2)`).toBeDefined();
        expect(gsps.elements.x00700084, `${name}: Content Creator's Name (Type 2)`).toBeDefined();
        const series = gsps.elements.x00081115?.items ?? [];
        expect(series, name).toHaveLength(1);
        expect(uid(series[0]!.dataSet!, 'x0020000e'), name).toBe(ct.seriesInstanceUid);
        const image = series[0]!.dataSet!.elements.x00081140?.items?.[0]?.dataSet;
        expect(image && uid(image, 'x00081150'), name).toBe(ct.sopClassUid);
        expect(image && uid(image, 'x00081155'), name).toBe(ct.sopInstanceUid);
        expect(gsps.elements.x00700402, name).toBeUndefined();
      }
      const written = recordOf('GSPSJS').ds;
      expect([ascii(written, 'x00700080'), ascii(written, 'x00700082'), ascii(written, 'x00700083')]).toEqual(
        ['LESION', '20240301', '101500'],
      );
      expect(ascii(written, 'x00700084')).toBe('Reader^Ruth');

      const blend = recordOf('BLEND').ds;
      expect(ascii(blend, 'x00700080')).toBe('FUSION');
      expect(ascii(blend, 'x00700082')).toBe('20240301');
      expect(blend.elements.x00081115).toBeUndefined();
      const studies = (blend.elements.x00700402?.items ?? []).map((it) => it.dataSet!);
      expect(studies.map((s) => uid(s, 'x0020000d'))).toEqual([ct.studyInstanceUid, mr.studyInstanceUid]);
      const overImage =
        studies[1]!.elements.x00081115?.items?.[0]?.dataSet?.elements.x00081140?.items?.[0]?.dataSet;
      expect(overImage && uid(overImage, 'x00081155')).toBe(mr.sopInstanceUid);

      // RT records: their labels, dates and times as the fixtures have them.
      expect(ascii(recordOf('DOSE').ds, 'x3004000a')).toBe('BEAM');
      const plan = recordOf('PLAN').ds;
      expect([ascii(plan, 'x300a0002'), ascii(plan, 'x300a0006'), ascii(plan, 'x300a0007')]).toEqual([
        'Plan1',
        '20030903',
        '150023',
      ]);
      const struct = recordOf('STRUCT').ds;
      expect([ascii(struct, 'x30060002'), ascii(struct, 'x30060008'), ascii(struct, 'x30060009')]).toEqual([
        'sep30',
        '20091223',
        '122507',
      ]);
      const rec = recordOf('RECORD').ds;
      expect([ascii(rec, 'x30080250'), ascii(rec, 'x30080251')]).toEqual(['20240302', '081500']);
      // WAVEFORM: the ECG's content date and time.
      const ecg = recordOf('ECG').ds;
      expect([ascii(ecg, 'x00080023'), ascii(ecg, 'x00080033')]).toEqual(['20130125', '105919']);

      if (hasTool('dcmdump')) {
        const dump = run('dcmdump', ['+M', 'DICOMDIR'], dir);
        expect(dump).not.toMatch(/^[EW]:/m);
        for (const type of [
          'PRESENTATION',
          'RT DOSE',
          'RT PLAN',
          'RT STRUCTURE SET',
          'RT TREAT RECORD',
          'WAVEFORM',
        ])
          expect(dump, type).toContain(`(0004,1430) CS [${type}]`);
      }
      if (hasTool('dciodvfy')) {
        const v = run('dciodvfy', ['DICOMDIR'], dir);
        expect(v).toContain('BasicDirectory');
        expect(v).not.toMatch(/^Error/m);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('read a waveform’s keys from the first 64 KiB the export keeps of it', async () => {
    const bytes = await readFile(path.join(FIXTURES, 'waveform_ecg.dcm'));
    expect(bytes.length).toBeGreaterThan(64 * 1024);
    const keys = directoryKeysOf(bytes.subarray(0, 64 * 1024), fallback(200));
    expect(recordTypeOf(keys.sopClassUid)).toBe('WAVEFORM');
    expect([keys.document?.contentDate, keys.document?.contentTime]).toEqual(['20130125', '105919']);
  });

  it('list an instance as an IMAGE when it lacks a Type 1 key that cannot be made up', async () => {
    const ct = await imageReference(CT_IMAGE);
    const noReferences = writeWithDcmjs(presentationHeader(ct, GSPS, 'LESION'));
    const unlabelled = directoryKeysOf(await readFile(path.join(FIXTURES, 'rtplan.dcm')), fallback(301));
    unlabelled.object = { ...unlabelled.object!, rtPlanLabel: null };
    const dicomdir = buildDicomdir([
      { fileId: ['DICOM', 'PS'], keys: directoryKeysOf(noReferences, fallback(300)) },
      { fileId: ['DICOM', 'PLAN'], keys: unlabelled },
    ]);
    expect(recordTypeOf(unlabelled.sopClassUid)).toBe('RT PLAN');
    expect(
      recordsOf(dicomdir)
        .filter((r) => r.sopInstanceUid)
        .map((r) => r.type),
    ).toEqual(['IMAGE', 'IMAGE']);
  });
});
