import { randomUUID } from 'node:crypto';
import type { DataSet } from 'dicom-parser';
import { readDataSet } from '../../dicom/data-set';
import { IMPLICIT_LITTLE_ENDIAN } from '../../dicom/transfer-syntax';
import type { CharacterSet } from '../../dicom/charset';
import { ascii, dataSetCharacterSet, firstCode, personName, text, uid } from '../../dicom/values';
import {
  hasRequiredObjectKeys,
  objectKeysOf,
  objectRecordTypeOf,
  presentationReferencesOf,
  type ObjectKeys,
  type ObjectRecordType,
  type SeriesReference,
  type StudyReference,
} from './dicomdir-record-keys';

/**
 * A DICOMDIR (PS3.10 Basic Directory IOD, PS3.3 Annex F) for the General Purpose CD-R / DVD
 * interchange profiles of PS3.11 (STD-GEN-CD, STD-GEN-DVD): PATIENT → STUDY → SERIES → instance
 * records (IMAGE, SR DOCUMENT, PRESENTATION, RT DOSE, WAVEFORM, …), each pointing at its next
 * sibling and its first child by byte offset from the start of the file, written by hand in
 * Explicit VR Little Endian (the only syntax PS3.11 allows for it).
 * Checked with dcmtk (`dcmdump +M`) and dicom3tools (`dciodvfy`) in
 * test/modules/exports/exports.test.ts and, record type by record type, in
 * test/modules/exports/dicomdir-records.test.ts.
 */

export const DICOMDIR_SOP_CLASS = '1.2.840.10008.1.3.10';
const EXPLICIT_LE = '1.2.840.10008.1.2.1';
/** This application's Implementation Class UID (a UUID-derived 2.25 UID, PS3.5 B.2). */
const IMPLEMENTATION_CLASS_UID = '2.25.146125713465466436129573196406133530891';
const IMPLEMENTATION_VERSION = 'MI_EXPORT_1';
/** A file-set ID is a CS of at most 16 characters. */
export const FILE_SET_ID = 'MI_EXPORT';

/** What the records of one instance say; read from the file itself (directoryKeysOf), else the index. */
export interface InstanceKeys {
  patientId: string | null;
  patientName: string | null;
  studyInstanceUid: string;
  studyDate: string | null;
  studyTime: string | null;
  studyDescription: string | null;
  studyId: string | null;
  accessionNumber: string | null;
  seriesInstanceUid: string;
  modality: string | null;
  seriesNumber: string | null;
  sopClassUid: string | null;
  sopInstanceUid: string;
  transferSyntaxUid: string | null;
  instanceNumber: string | null;
  /**
   * Keys of a document's record (SR DOCUMENT, KEY OBJECT DOC, ENCAP DOC), read from the file; a
   * WAVEFORM record's content date and time come from here too.
   */
  document?: DocumentKeys;
  /** Keys of a presentation state's or an RT object's record, read from the file. */
  object?: ObjectKeys;
}

/** A coded concept (Code Value, Coding Scheme Designator, Code Meaning). */
interface Code {
  value: string;
  scheme: string;
  meaning: string;
}

export interface DocumentKeys {
  contentDate: string | null;
  contentTime: string | null;
  conceptName: Code | null;
  completionFlag: string | null;
  verificationFlag: string | null;
  verificationDateTime: string | null;
  documentTitle: string | null;
  mimeType: string | null;
}

type RecordType =
  | 'PATIENT'
  | 'STUDY'
  | 'SERIES'
  | 'IMAGE'
  | 'SR DOCUMENT'
  | 'KEY OBJECT DOC'
  | 'ENCAP DOC'
  | ObjectRecordType;

const SR_CLASSES = '1.2.840.10008.5.1.4.1.1.88.';
const KEY_OBJECT_SELECTION = '1.2.840.10008.5.1.4.1.1.88.59';
const ENCAPSULATED_CLASSES = '1.2.840.10008.5.1.4.1.1.104.';
/** What an encapsulated document holds when its MIME Type lies past the bytes that were read. */
const ENCAPSULATED_MIME: Record<string, string> = {
  '1.2.840.10008.5.1.4.1.1.104.1': 'application/pdf',
  '1.2.840.10008.5.1.4.1.1.104.2': 'text/XML',
  '1.2.840.10008.5.1.4.1.1.104.3': 'model/stl',
  '1.2.840.10008.5.1.4.1.1.104.4': 'model/obj',
  '1.2.840.10008.5.1.4.1.1.104.5': 'model/mtl',
};

/**
 * The record type of an instance (PS3.3 F.4, Table F.4-1, and F.5): structured reports, key object
 * selections, encapsulated documents, presentation states, first-generation RT objects and waveforms
 * have records of their own (the classes of the last three are listed in dicomdir-record-keys.ts);
 * every other instance is an IMAGE record here.
 */
export function recordTypeOf(sopClassUid: string | null): RecordType {
  if (!sopClassUid) return 'IMAGE';
  if (sopClassUid === KEY_OBJECT_SELECTION) return 'KEY OBJECT DOC';
  if (sopClassUid.startsWith(SR_CLASSES)) return 'SR DOCUMENT';
  if (sopClassUid.startsWith(ENCAPSULATED_CLASSES)) return 'ENCAP DOC';
  return objectRecordTypeOf(sopClassUid) ?? 'IMAGE';
}

function codeOf(ds: DataSet | undefined, tag: string, cs: CharacterSet): Code | null {
  const item = ds?.elements[tag]?.items?.[0]?.dataSet;
  if (!item) return null;
  const value = text(item, 'x00080100', cs);
  const scheme = text(item, 'x00080102', cs);
  const meaning = text(item, 'x00080104', cs);
  return value && scheme && meaning ? { value, scheme, meaning } : null;
}

function documentKeysOf(ds: DataSet, cs: CharacterSet): DocumentKeys {
  const code = (tag: string) => firstCode(ascii(ds, tag));
  const verifier = ds.elements.x0040a073?.items?.[0]?.dataSet;
  return {
    contentDate: code('x00080023'),
    contentTime: code('x00080033'),
    conceptName: codeOf(ds, 'x0040a043', cs),
    completionFlag: code('x0040a491'),
    verificationFlag: code('x0040a493'),
    verificationDateTime: verifier ? firstCode(ascii(verifier, 'x0040a030')) : null,
    documentTitle: text(ds, 'x00420010', cs),
    mimeType: text(ds, 'x00420012', cs),
  };
}

/** A file of the media: its File ID components (each 1–8 of A–Z, 0–9, _) and its keys. */
export interface DirectoryFile {
  fileId: string[];
  keys: InstanceKeys;
}

const FILE_ID_COMPONENT = /^[A-Z0-9_]{1,8}$/;

/**
 * The keys of an instance from its first bytes (parsing stops at the pixel data), each missing one
 * taken from `fallback` (what the index recorded at upload). A prefix that ends inside a large
 * element still gives what came before it.
 */
export function directoryKeysOf(prefix: Uint8Array, fallback: InstanceKeys): InstanceKeys {
  let ds: DataSet | undefined;
  try {
    ds = readDataSet(prefix, {
      untilPixelData: true,
      transferSyntaxUid: fallback.transferSyntaxUid ?? IMPLICIT_LITTLE_ENDIAN,
    });
  } catch (err) {
    ds = (err as { dataSet?: DataSet } | null)?.dataSet;
  }
  if (!ds) return fallback;
  const cs = dataSetCharacterSet(ds);
  const is = (tag: string) => firstCode(ascii(ds, tag));
  return {
    patientId: text(ds, 'x00100020', cs) ?? fallback.patientId,
    patientName: personName(ds, 'x00100010', cs) ?? fallback.patientName,
    studyInstanceUid: uid(ds, 'x0020000d') ?? fallback.studyInstanceUid,
    studyDate: firstCode(ascii(ds, 'x00080020')) ?? fallback.studyDate,
    studyTime: firstCode(ascii(ds, 'x00080030')) ?? fallback.studyTime,
    studyDescription: text(ds, 'x00081030', cs) ?? fallback.studyDescription,
    studyId: text(ds, 'x00200010', cs) ?? fallback.studyId,
    accessionNumber: text(ds, 'x00080050', cs) ?? fallback.accessionNumber,
    seriesInstanceUid: uid(ds, 'x0020000e') ?? fallback.seriesInstanceUid,
    modality: is('x00080060') ?? fallback.modality,
    seriesNumber: is('x00200011') ?? fallback.seriesNumber,
    sopClassUid: uid(ds, 'x00080016') ?? uid(ds, 'x00020002') ?? fallback.sopClassUid,
    sopInstanceUid: uid(ds, 'x00080018') ?? uid(ds, 'x00020003') ?? fallback.sopInstanceUid,
    transferSyntaxUid: uid(ds, 'x00020010') ?? fallback.transferSyntaxUid,
    instanceNumber: is('x00200013') ?? fallback.instanceNumber,
    document: documentKeysOf(ds, cs),
    object: objectKeysOf(ds, cs),
  };
}

// ---- Encoding (Explicit VR Little Endian) ----

const LONG_VRS = new Set(['OB', 'OW', 'OF', 'OD', 'OL', 'OV', 'SQ', 'UC', 'UN', 'UR', 'UT', 'SV', 'UV']);

function element(group: number, elem: number, vr: string, value: Buffer): Buffer {
  const long = LONG_VRS.has(vr);
  const head = Buffer.alloc(long ? 12 : 8);
  head.writeUInt16LE(group, 0);
  head.writeUInt16LE(elem, 2);
  head.write(vr, 4, 'latin1');
  if (long) head.writeUInt32LE(value.length, 8);
  else {
    if (value.length > 0xffff) throw new Error(`value of (${group},${elem}) too long`);
    head.writeUInt16LE(value.length, 6);
  }
  return Buffer.concat([head, value]);
}

const isAscii = (s: string) => /^[\x20-\x7e]*$/.test(s);

/** A string value padded to even length: UI with NUL, the others with a space (PS3.5 6.2). */
function str(vr: string, value: string | null | undefined, maxChars?: number): Buffer {
  const v = (value ?? '').replace(/[\0\r\n\t\f\\]/g, ' ').trim();
  return padded(vr, maxChars === undefined ? v : [...v].slice(0, maxChars).join(''));
}

/** Several values, joined by the value separator. */
function multi(vr: string, values: string[]): Buffer {
  return padded(vr, values.join('\\'));
}

function padded(vr: string, v: string): Buffer {
  const b = Buffer.from(v, isAscii(v) ? 'latin1' : 'utf8');
  if (b.length % 2 === 0) return b;
  return Buffer.concat([b, Buffer.from(vr === 'UI' ? '\0' : ' ', 'latin1')]);
}

function ul(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0, 0);
  return b;
}

function us(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n, 0);
  return b;
}

/** Type 1 keys must not be empty: like dcmmkdir's --invent, a missing one gets a placeholder. */
const DATE_UNKNOWN = '19000101';
const TIME_UNKNOWN = '000000';

/** A DA as written (YYYYMMDD), or null when it is none; the index keeps YYYY-MM-DD. */
const validDa = (v: string | null) => {
  const d = (v ?? '').replace(/[-.]/g, '');
  return /^\d{8}$/.test(d) ? d : null;
};
const validTm = (v: string | null) => (v && /^\d{2}(\d{2}(\d{2}(\.\d{1,6})?)?)?$/.test(v) ? v : null);
/** A Type 1 date or time: a placeholder when there is none. */
const da = (v: string | null) => validDa(v) ?? DATE_UNKNOWN;
const tm = (v: string | null) => validTm(v) ?? TIME_UNKNOWN;
/** A Type 2 date or time: empty when there is none. */
const da2 = (v: string | null) => validDa(v) ?? '';
const tm2 = (v: string | null) => validTm(v) ?? '';
const intString = (v: string | null, invented: number) =>
  v && /^[+-]?\d{1,12}$/.test(v.trim()) ? v.trim() : String(invented);

/** A record's elements: group, element, VR and value. */
type Elements = Array<[number, number, string, Buffer]>;

interface Rec {
  type: RecordType;
  /** Elements after the record's own header (0004,1400–1430), in ascending tag order. */
  body: Buffer[];
  children: Rec[];
  /** Byte offset of this item in the file, once laid out. */
  offset?: number;
}

function record(type: Rec['type'], elements: Elements, texts: string[]): Rec {
  const body: Buffer[] = [];
  // Specific Character Set (0008,0005) when a text value of this record is not plain ASCII.
  const charset = texts.some((t) => !isAscii(t))
    ? [element(0x0008, 0x0005, 'CS', str('CS', 'ISO_IR 192'))]
    : [];
  const sorted = [...elements].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [g, e, vr, v] of sorted) {
    if (g > 0x0008 || (g === 0x0008 && e > 0x0005)) body.push(...charset.splice(0));
    body.push(element(g, e, vr, v));
  }
  body.push(...charset);
  return { type, body, children: [] };
}

/** The records in the order they are written: depth first, each parent before its children. */
function flatten(recs: Rec[], out: Rec[] = []): Rec[] {
  for (const r of recs) {
    out.push(r);
    flatten(r.children, out);
  }
  return out;
}

/** Header length of a record item: the item tag and length, then 0004,1400/1410/1420/1430. */
function recordHeader(r: Rec, next: number, lower: number): Buffer {
  return Buffer.concat([
    element(0x0004, 0x1400, 'UL', ul(next)),
    element(0x0004, 0x1410, 'US', us(0xffff)),
    element(0x0004, 0x1420, 'UL', ul(lower)),
    element(0x0004, 0x1430, 'CS', str('CS', r.type)),
  ]);
}

function item(content: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16LE(0xfffe, 0);
  head.writeUInt16LE(0xe000, 2);
  head.writeUInt32LE(content.length, 4);
  return Buffer.concat([head, content]);
}

/** An empty value, or a Code Sequence of one item (Explicit VR Little Endian, defined lengths). */
function codeSequence(code: Code | null): Buffer {
  if (!code) return Buffer.alloc(0);
  const content = Buffer.concat([
    element(0x0008, 0x0100, 'SH', str('SH', code.value, 16)),
    element(0x0008, 0x0102, 'SH', str('SH', code.scheme, 16)),
    element(0x0008, 0x0104, 'LO', str('LO', code.meaning, 64)),
  ]);
  return item(content);
}

/** A sequence of items, each the concatenation of its elements (in ascending tag order). */
function sequence(items: Buffer[][]): Buffer {
  return Buffer.concat(items.map((elements) => item(Buffer.concat(elements))));
}

/** Items of a Referenced Series Sequence with only what PS3.3 Table F.5-23 asks of them. */
function seriesItems(series: SeriesReference[]): Buffer[][] {
  return series.map((s) => [
    element(
      0x0008,
      0x1140,
      'SQ',
      sequence(
        s.images.map((im) => [
          element(0x0008, 0x1150, 'UI', str('UI', im.sopClassUid)),
          element(0x0008, 0x1155, 'UI', str('UI', im.sopInstanceUid)),
        ]),
      ),
    ),
    element(0x0020, 0x000e, 'UI', str('UI', s.seriesInstanceUid)),
  ]);
}

function blendingItems(studies: StudyReference[]): Buffer[][] {
  return studies.map((st) => [
    element(0x0008, 0x1115, 'SQ', sequence(seriesItems(st.series))),
    element(0x0020, 0x000d, 'UI', str('UI', st.studyInstanceUid)),
  ]);
}

/**
 * The keys of a presentation state's, an RT object's or a waveform's record beyond its Instance
 * Number (PS3.3 Tables F.5-19 to F.5-24): Type 1 keys present (dates and times with a placeholder
 * when the file has none), Type 2 keys present and empty when the file has none, Type 1C keys when
 * their condition holds, and the text values among them (for the record's character set).
 */
function objectRecordKeys(
  type: ObjectRecordType,
  sopClassUid: string,
  k: ObjectKeys | undefined,
  d: DocumentKeys | undefined,
): { elements: Elements; texts: string[] } {
  switch (type) {
    case 'PRESENTATION': {
      const refs = presentationReferencesOf(sopClassUid);
      const elements: Elements = [
        [0x0070, 0x0080, 'CS', str('CS', k!.contentLabel, 16)],
        [0x0070, 0x0081, 'LO', str('LO', k!.contentDescription, 64)],
        [0x0070, 0x0082, 'DA', str('DA', da(k!.presentationCreationDate))],
        [0x0070, 0x0083, 'TM', str('TM', tm(k!.presentationCreationTime))],
        [0x0070, 0x0084, 'PN', str('PN', k!.contentCreatorName)],
      ];
      if (refs === 'series')
        elements.push([0x0008, 0x1115, 'SQ', sequence(seriesItems(k!.referencedSeries!))]);
      if (refs === 'blending') elements.push([0x0070, 0x0402, 'SQ', sequence(blendingItems(k!.blending!))]);
      return { elements, texts: [k!.contentDescription ?? '', k!.contentCreatorName ?? ''] };
    }
    case 'RT DOSE': {
      const elements: Elements = [[0x3004, 0x000a, 'CS', str('CS', k!.doseSummationType, 16)]];
      // Dose Comment is Type 3: written when the file has one.
      if (k!.doseComment) elements.push([0x3004, 0x0006, 'LO', str('LO', k!.doseComment, 64)]);
      return { elements, texts: [k!.doseComment ?? ''] };
    }
    case 'RT STRUCTURE SET':
      return {
        elements: [
          [0x3006, 0x0002, 'SH', str('SH', k!.structureSetLabel, 16)],
          [0x3006, 0x0008, 'DA', str('DA', da2(k!.structureSetDate))],
          [0x3006, 0x0009, 'TM', str('TM', tm2(k!.structureSetTime))],
        ],
        texts: [k!.structureSetLabel ?? ''],
      };
    case 'RT PLAN':
      return {
        elements: [
          [0x300a, 0x0002, 'SH', str('SH', k!.rtPlanLabel, 16)],
          [0x300a, 0x0006, 'DA', str('DA', da2(k!.rtPlanDate))],
          [0x300a, 0x0007, 'TM', str('TM', tm2(k!.rtPlanTime))],
        ],
        texts: [k!.rtPlanLabel ?? ''],
      };
    case 'RT TREAT RECORD':
      return {
        elements: [
          [0x3008, 0x0250, 'DA', str('DA', da2(k?.treatmentDate ?? null))],
          [0x3008, 0x0251, 'TM', str('TM', tm2(k?.treatmentTime ?? null))],
        ],
        texts: [],
      };
    case 'WAVEFORM':
      return {
        elements: [
          [0x0008, 0x0023, 'DA', str('DA', da(d?.contentDate ?? null))],
          [0x0008, 0x0033, 'TM', str('TM', tm(d?.contentTime ?? null))],
        ],
        texts: [],
      };
  }
}

const OBJECT_RECORD_TYPES = new Set<RecordType>([
  'PRESENTATION',
  'RT DOSE',
  'RT STRUCTURE SET',
  'RT PLAN',
  'RT TREAT RECORD',
  'WAVEFORM',
]);
const isObjectRecordType = (t: RecordType): t is ObjectRecordType => OBJECT_RECORD_TYPES.has(t);

/**
 * The record of one instance, with the keys its type requires (PS3.3 F.5): an IMAGE's Instance
 * Number; a document's content date and time and its concept name; an SR's completion and
 * verification flags; an encapsulated document's title and MIME type; a presentation state's
 * creation date and time, content identification and the images it applies to; an RT object's
 * label, date and time (or dose summation type); a waveform's content date and time. A Type 1 date,
 * time or number the file lacks gets a placeholder, as dcmmkdir's --invent does; an instance
 * lacking a Type 1 key that cannot be made up (an SR's or key object selection's concept name, a
 * presentation state's label or referenced images, an RT object's label), which no valid one lacks,
 * is listed as an IMAGE.
 */
function instanceRecord(f: DirectoryFile, instanceNumber: string): Rec {
  const k = f.keys;
  const d = k.document;
  let type = recordTypeOf(k.sopClassUid);
  if ((type === 'SR DOCUMENT' || type === 'KEY OBJECT DOC') && !d?.conceptName) type = 'IMAGE';
  if (isObjectRecordType(type) && !hasRequiredObjectKeys(type, k.sopClassUid ?? '', k.object)) type = 'IMAGE';
  const elements: Elements = [
    [0x0004, 0x1500, 'CS', multi('CS', f.fileId)],
    // A file without a SOP Class UID still needs one here; Secondary Capture is the generic image.
    [0x0004, 0x1510, 'UI', str('UI', k.sopClassUid ?? '1.2.840.10008.5.1.4.1.1.7')],
    [0x0004, 0x1511, 'UI', str('UI', k.sopInstanceUid)],
    [0x0004, 0x1512, 'UI', str('UI', k.transferSyntaxUid ?? IMPLICIT_LITTLE_ENDIAN)],
    [0x0020, 0x0013, 'IS', str('IS', instanceNumber)],
  ];
  const texts: string[] = [];
  if (type === 'SR DOCUMENT' || type === 'KEY OBJECT DOC') {
    elements.push(
      [0x0008, 0x0023, 'DA', str('DA', da(d!.contentDate))],
      [0x0008, 0x0033, 'TM', str('TM', tm(d!.contentTime))],
      [0x0040, 0xa043, 'SQ', codeSequence(d!.conceptName)],
    );
    texts.push(d!.conceptName!.value, d!.conceptName!.scheme, d!.conceptName!.meaning);
  }
  if (type === 'SR DOCUMENT') {
    const flag = d!.verificationFlag === 'VERIFIED' ? 'VERIFIED' : 'UNVERIFIED';
    elements.push(
      [0x0040, 0xa491, 'CS', str('CS', d!.completionFlag === 'COMPLETE' ? 'COMPLETE' : 'PARTIAL')],
      [0x0040, 0xa493, 'CS', str('CS', flag)],
    );
    if (flag === 'VERIFIED')
      elements.push([
        0x0040,
        0xa030,
        'DT',
        str('DT', d!.verificationDateTime ?? `${DATE_UNKNOWN}${TIME_UNKNOWN}`),
      ]);
  }
  if (type === 'ENCAP DOC') {
    const mime = d?.mimeType ?? ENCAPSULATED_MIME[k.sopClassUid ?? ''] ?? 'application/octet-stream';
    elements.push(
      [0x0008, 0x0023, 'DA', d?.contentDate ? str('DA', da(d.contentDate)) : Buffer.alloc(0)],
      [0x0008, 0x0033, 'TM', d?.contentTime ? str('TM', tm(d.contentTime)) : Buffer.alloc(0)],
      [0x0040, 0xa043, 'SQ', codeSequence(d?.conceptName ?? null)],
      [0x0042, 0x0010, 'ST', str('ST', d?.documentTitle, 1024)],
      [0x0042, 0x0012, 'LO', str('LO', mime, 64)],
    );
    texts.push(
      d?.documentTitle ?? '',
      ...(d?.conceptName ? [d.conceptName.value, d.conceptName.meaning] : []),
    );
  }
  if (isObjectRecordType(type)) {
    const keys = objectRecordKeys(type, k.sopClassUid ?? '', k.object, d);
    elements.push(...keys.elements);
    texts.push(...keys.texts);
  }
  return record(type, elements, texts);
}

/**
 * The DICOMDIR of these files. Patients are told apart by Patient ID and name, studies by Study
 * Instance UID, series by Series Instance UID, in the order the files come.
 */
export function buildDicomdir(files: DirectoryFile[]): Buffer {
  const patients = new Map<
    string,
    { rec: Rec; studies: Map<string, { rec: Rec; series: Map<string, Rec> }> }
  >();
  let inventedPatient = 0;
  let inventedSeries = 0;
  for (const f of files) {
    for (const c of f.fileId)
      if (!FILE_ID_COMPONENT.test(c)) throw new Error(`File ID component ${c} is not allowed on media`);
    const k = f.keys;
    const patientId = k.patientId ?? `NOID${++inventedPatient}`;
    const pKey = `${patientId}\0${k.patientName ?? ''}`;
    let patient = patients.get(pKey);
    if (!patient) {
      const rec = record(
        'PATIENT',
        [
          [0x0010, 0x0010, 'PN', str('PN', k.patientName)],
          [0x0010, 0x0020, 'LO', str('LO', patientId, 64)],
        ],
        [k.patientName ?? '', patientId],
      );
      patient = { rec, studies: new Map() };
      patients.set(pKey, patient);
    }
    let study = patient.studies.get(k.studyInstanceUid);
    if (!study) {
      const rec = record(
        'STUDY',
        [
          [0x0008, 0x0020, 'DA', str('DA', da(k.studyDate))],
          [0x0008, 0x0030, 'TM', str('TM', tm(k.studyTime))],
          [0x0008, 0x0050, 'SH', str('SH', k.accessionNumber, 16)],
          [0x0008, 0x1030, 'LO', str('LO', k.studyDescription, 64)],
          [0x0020, 0x000d, 'UI', str('UI', k.studyInstanceUid)],
          [0x0020, 0x0010, 'SH', str('SH', k.studyId ?? String(patient.studies.size + 1), 16)],
        ],
        [k.accessionNumber ?? '', k.studyDescription ?? '', k.studyId ?? ''],
      );
      study = { rec, series: new Map() };
      patient.studies.set(k.studyInstanceUid, study);
      patient.rec.children.push(rec);
    }
    let series = study.series.get(k.seriesInstanceUid);
    if (!series) {
      series = record(
        'SERIES',
        [
          [0x0008, 0x0060, 'CS', str('CS', k.modality ?? 'OT', 16)],
          [0x0020, 0x000e, 'UI', str('UI', k.seriesInstanceUid)],
          [0x0020, 0x0011, 'IS', str('IS', intString(k.seriesNumber, ++inventedSeries))],
        ],
        [],
      );
      study.series.set(k.seriesInstanceUid, series);
      study.rec.children.push(series);
    }
    series.children.push(instanceRecord(f, intString(k.instanceNumber, series.children.length + 1)));
  }

  const roots = [...patients.values()].map((p) => p.rec);
  const meta = fileMeta(`2.25.${BigInt(`0x${randomUUID().replace(/-/g, '')}`).toString()}`);
  const head = Buffer.concat([
    element(0x0004, 0x1130, 'CS', str('CS', FILE_SET_ID)),
    element(0x0004, 0x1200, 'UL', ul(0)),
    element(0x0004, 0x1202, 'UL', ul(0)),
    element(0x0004, 0x1212, 'US', us(0)),
  ]);
  const ordered = flatten(roots);
  // A record's header has the same length whatever offsets it holds, so positions follow from sizes.
  const sqHeaderLen = 12;
  let pos = 128 + 4 + meta.length + head.length + sqHeaderLen;
  for (const r of ordered) {
    r.offset = pos;
    pos += 8 + recordHeader(r, 0, 0).length + r.body.reduce((n, b) => n + b.length, 0);
  }
  const items: Buffer[] = [];
  const siblingsOf = new Map<Rec, Rec | undefined>();
  const link = (list: Rec[]) => list.forEach((r, i) => siblingsOf.set(r, list[i + 1]));
  link(roots);
  for (const r of ordered) link(r.children);
  for (const r of ordered) {
    const next = siblingsOf.get(r)?.offset ?? 0;
    const lower = r.children[0]?.offset ?? 0;
    items.push(item(Buffer.concat([recordHeader(r, next, lower), ...r.body])));
  }
  const sequence = Buffer.concat(items);
  const dataSet = Buffer.concat([
    element(0x0004, 0x1130, 'CS', str('CS', FILE_SET_ID)),
    element(0x0004, 0x1200, 'UL', ul(roots[0]?.offset ?? 0)),
    element(0x0004, 0x1202, 'UL', ul(roots.at(-1)?.offset ?? 0)),
    element(0x0004, 0x1212, 'US', us(0)),
    element(0x0004, 0x1220, 'SQ', sequence),
  ]);
  return Buffer.concat([Buffer.alloc(128), Buffer.from('DICM', 'latin1'), meta, dataSet]);
}

function fileMeta(instanceUid: string): Buffer {
  const rest = Buffer.concat([
    element(0x0002, 0x0001, 'OB', Buffer.from([0, 1])),
    element(0x0002, 0x0002, 'UI', str('UI', DICOMDIR_SOP_CLASS)),
    element(0x0002, 0x0003, 'UI', str('UI', instanceUid)),
    element(0x0002, 0x0010, 'UI', str('UI', EXPLICIT_LE)),
    element(0x0002, 0x0012, 'UI', str('UI', IMPLEMENTATION_CLASS_UID)),
    element(0x0002, 0x0013, 'SH', str('SH', IMPLEMENTATION_VERSION)),
  ]);
  return Buffer.concat([element(0x0002, 0x0000, 'UL', ul(rest.length)), rest]);
}
