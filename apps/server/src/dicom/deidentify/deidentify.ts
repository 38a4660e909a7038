import type { DataSet, Element } from 'dicom-parser';
import { characterSet, type CharacterSet } from '../charset';
import { inflateRawSync } from 'node:zlib';
import { dictionaryVr, hasDicmPreamble, MAX_INFLATED_BYTES, readDataSet } from '../data-set';
import { TS } from '../transfer-syntax';
import {
  APPLIED_OPTIONS,
  concreteAction,
  METHOD_CODES,
  METHOD_DESCRIPTION,
  PROFILE_EDITION,
  profileRow,
  tableAction,
  type ConcreteAction,
  type UidMap,
} from './profile';
import { asciiValue, type OutElement, padded, type Syntax, writePart10 } from './writer';

/**
 * De-identification of one DICOM instance to PS3.15 Annex E: the Basic Application Level
 * Confidentiality Profile with the Retain Longitudinal Temporal Information with Modified Dates and
 * the Clean Descriptors options, the attribute actions taken from Table E.1-1 as data
 * (profile-table.ts). The data set is parsed with dicom-parser and written back element by element:
 * values kept are copied as bytes, so every character set survives untouched; nested sequences get
 * the same rules at every depth; private attributes go; UIDs are replaced through the copy's map.
 * See docs/deidentification.md.
 */

export { PROFILE_EDITION };

/** Stays stable: names this engine in (0002,0012) of every file it writes. */
const IMPLEMENTATION_CLASS_UID = '2.25.135207860417186385417426398152430964551';
const IMPLEMENTATION_VERSION = 'MI_DEID_1';

export const SOP_CLASS = {
  encapsulatedPdf: '1.2.840.10008.5.1.4.1.1.104.1',
} as const;
const ULTRASOUND_SOP_CLASSES = new Set([
  '1.2.840.10008.5.1.4.1.1.6',
  '1.2.840.10008.5.1.4.1.1.6.1',
  '1.2.840.10008.5.1.4.1.1.6.2',
  '1.2.840.10008.5.1.4.1.1.6.3',
  '1.2.840.10008.5.1.4.1.1.3',
  '1.2.840.10008.5.1.4.1.1.3.1',
]);
const SECONDARY_CAPTURE_PREFIX = '1.2.840.10008.5.1.4.1.1.7';
const ENCAPSULATED_DOCUMENT_PREFIX = '1.2.840.10008.5.1.4.1.1.104.';
/** Structured reports (PS3.4 B.5: the SR Storage SOP classes). */
const STRUCTURED_REPORT_PREFIX = '1.2.840.10008.5.1.4.1.1.88.';

export interface DeidentifyContext {
  /** Whole days every date moves by (`dateShiftDays`: one per patient). */
  dateShiftDays: number;
  /** The copy's UID map (`createUidMap`): one per copy, shared by all its instances. */
  uids: UidMap;
  /**
   * Keep reports: encapsulated PDFs and structured reports (their text is not cleaned: the patient
   * chose this knowingly).
   */
  includePdfReports?: boolean;
  /** For files stored without a Part 10 header (referenced by a DICOMDIR). */
  transferSyntaxUid?: string;
}

export type ChangeKind = 'removed' | 'emptied' | 'replaced' | 'shifted' | 'cleaned';

/** One attribute the profile changed. `path` names nested ones: `(0040,A730)[1] > (0040,A123)`. */
export interface AttributeChange {
  path: string;
  tag: string;
  name: string;
  kind: ChangeKind;
  before: string | null;
  after: string | null;
}

export type LeftOutCode =
  'burned-in' | 'pixel-data-risk' | 'pdf-report' | 'document' | 'unreadable' | 'failed';

export type DeidentifyResult =
  | {
      kind: 'deidentified';
      /**
       * The file as parts, in order (writer.ts `Part10File`): the first holds everything up to the
       * Pixel Data value, which follows as a view into the bytes given to the engine (not a copy: they
       * must not change while the parts are in use). Write these rather than `bytes` where you can.
       */
      parts: readonly Uint8Array[];
      /** Bytes of the whole file. */
      size: number;
      /** The whole file in one buffer: the parts joined, a copy made on first use (and kept). */
      readonly bytes: Buffer;
      sopClassUid: string;
      sopInstanceUid: string;
      seriesInstanceUid: string;
      studyInstanceUid: string;
      original: { sopInstanceUid: string; seriesInstanceUid: string; studyInstanceUid: string };
      changes: AttributeChange[];
      /** Private attributes removed, at every depth. */
      privateRemoved: number;
    }
  | {
      kind: 'left-out';
      code: LeftOutCode;
      reason: string;
      sopInstanceUid: string | null;
      modality: string | null;
    };

/** Why an instance must stay out of a de-identified copy, or null when it may go in. */
export function leftOutReason(
  info: { sopClassUid: string | null; modality: string | null; burnedIn: string | null },
  includePdfReports = false,
): { code: LeftOutCode; reason: string } | null {
  const sopClass = info.sopClassUid ?? '';
  const burnedIn = info.burnedIn?.trim().toUpperCase() ?? null;
  if (sopClass === SOP_CLASS.encapsulatedPdf) {
    if (includePdfReports) return null;
    return {
      code: 'pdf-report',
      reason: 'PDF report: its text can name the patient and is not cleaned (include reports to keep it)',
    };
  }
  // The profile keeps an SR's Text Values (Table E.1-1 does not list them), and a report's free
  // text is where a name is most likely: like a PDF, it stays out unless the patient includes it.
  if (sopClass.startsWith(STRUCTURED_REPORT_PREFIX) || info.modality === 'SR') {
    if (includePdfReports) return null;
    return {
      code: 'pdf-report',
      reason:
        'structured report: its free text can name the patient and is not cleaned (include reports to keep it)',
    };
  }
  if (burnedIn === 'YES')
    return {
      code: 'burned-in',
      reason: 'Burned In Annotation is YES: the image itself shows identifying text',
    };
  if (burnedIn === null) {
    if (info.modality === 'US' || ULTRASOUND_SOP_CLASSES.has(sopClass))
      return {
        code: 'pixel-data-risk',
        reason: 'ultrasound image without Burned In Annotation: such images often show the name on screen',
      };
    if (sopClass.startsWith(SECONDARY_CAPTURE_PREFIX))
      return {
        code: 'pixel-data-risk',
        reason: 'secondary capture without Burned In Annotation: screenshots and scans often show the name',
      };
    if (sopClass.startsWith(ENCAPSULATED_DOCUMENT_PREFIX) || info.modality === 'DOC')
      return { code: 'document', reason: 'encapsulated document: its content is not cleaned' };
  }
  return null;
}

/** The (0008,0018), (0008,0016), (0008,0060) and (0028,0301) of an instance, without decoding anything else. */
function instanceInfo(ds: DataSet) {
  return {
    sopInstanceUid: uidOf(ds, 'x00080018'),
    sopClassUid: uidOf(ds, 'x00080016'),
    modality: asciiOf(ds, 'x00080060')?.toUpperCase() ?? null,
    burnedIn: asciiOf(ds, 'x00280301'),
  };
}

function asciiOf(ds: DataSet, tag: string): string | null {
  const el = ds.elements[tag];
  if (!el || el.length <= 0 || el.length === UNDEFINED || el.items) return null;
  const v = Buffer.from(ds.byteArray.buffer, ds.byteArray.byteOffset + el.dataOffset, el.length)
    .toString('latin1')
    .replace(/[\0\s]+$/, '')
    .trim();
  return v === '' ? null : v;
}
const uidOf = (ds: DataSet, tag: string) => asciiOf(ds, tag)?.replace(/\0/g, '') ?? null;

const UNDEFINED = 0xffffffff;

function syntaxOf(ts: string): Syntax {
  return { explicit: ts !== TS.implicitLE, littleEndian: ts !== TS.explicitBE };
}

const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
const tagName = (tag: number) => `(${hex4(tag >>> 16)},${hex4(tag & 0xffff)})`;

/** Text VRs whose bytes follow (0008,0005). */
const TEXT_VRS = new Set(['SH', 'LO', 'ST', 'LT', 'UT', 'UC', 'PN']);
/** Descriptor VRs the Clean Descriptors option reads. */
const CLEANABLE_VRS = new Set([...TEXT_VRS, 'CS', 'AE', 'UR']);

interface Walk {
  ctx: DeidentifyContext;
  syntax: Syntax;
  cs: CharacterSet;
  /** Lower-case words that identify this patient or study, for the Clean Descriptors option. */
  identifiers: string[];
  changes: AttributeChange[];
  privateRemoved: number;
}

/**
 * De-identifies one instance. Never throws: an instance that cannot be read, or that the profile
 * cannot make safe, is left out with the reason instead of shipped with identifiers.
 */
export function deidentifyInstance(bytes: Uint8Array, ctx: DeidentifyContext): DeidentifyResult {
  return run(bytes, ctx, true);
}

/**
 * The attribute rules alone, whatever the pixel data may show: lets tests check the profile on every
 * kind of file (secondary captures in many character sets, say). Never for a copy anyone receives.
 */
export function deidentifyAttributesOnly(bytes: Uint8Array, ctx: DeidentifyContext): DeidentifyResult {
  return run(bytes, ctx, false);
}

function run(bytes: Uint8Array, ctx: DeidentifyContext, pixelPolicy: boolean): DeidentifyResult {
  let ds: DataSet;
  try {
    // A deflated data set is expanded first and then read as the explicit little endian it is.
    const inflated = inflatedDataSet(bytes);
    if (inflated) return run(inflated, { ...ctx, transferSyntaxUid: TS.explicitLE }, pixelPolicy);
    ds = readDataSet(bytes, {
      dictionaryVrs: true,
      ...(ctx.transferSyntaxUid ? { transferSyntaxUid: ctx.transferSyntaxUid } : {}),
    });
  } catch (err) {
    return {
      kind: 'left-out',
      code: 'unreadable',
      reason: `could not be read as DICOM (${describe(err)})`,
      sopInstanceUid: null,
      modality: null,
    };
  }
  const info = instanceInfo(ds);
  const fail = (code: LeftOutCode, reason: string): DeidentifyResult => ({
    kind: 'left-out',
    code,
    reason,
    sopInstanceUid: info.sopInstanceUid,
    modality: info.modality,
  });
  const study = uidOf(ds, 'x0020000d');
  const series = uidOf(ds, 'x0020000e');
  if (!info.sopInstanceUid || !info.sopClassUid || !study || !series)
    return fail('unreadable', 'missing SOP Class, SOP Instance, Study or Series Instance UID');
  const why = pixelPolicy ? leftOutReason(info, ctx.includePdfReports) : null;
  if (why) return fail(why.code, why.reason);
  try {
    return deidentifyDataSet(ds, bytes, ctx, {
      sopClassUid: info.sopClassUid,
      sopInstanceUid: info.sopInstanceUid,
      seriesInstanceUid: series,
      studyInstanceUid: study,
    });
  } catch (err) {
    return fail('failed', `could not be de-identified (${describe(err)})`);
  }
}

/** The data set of a Deflated Explicit VR Little Endian file, expanded; null for any other file. */
function inflatedDataSet(bytes: Uint8Array): Uint8Array | null {
  if (!hasDicmPreamble(bytes) || bytes.length < 144) return null;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.readUInt16LE(132) !== 0x0002 || b.readUInt16LE(134) !== 0x0000) return null;
  const metaEnd = 144 + b.readUInt32LE(140);
  // The meta group is explicit little endian (PS3.10 §7.1): find (0002,0010) in it.
  let at = 132;
  let ts: string | null = null;
  while (at + 8 <= Math.min(metaEnd, b.length)) {
    const element = b.readUInt16LE(at + 2);
    const vr = b.toString('latin1', at + 4, at + 6);
    const long = ['OB', 'OW', 'UN', 'SQ', 'UT', 'UC', 'UR'].includes(vr);
    const length = long ? b.readUInt32LE(at + 8) : b.readUInt16LE(at + 6);
    const start = at + (long ? 12 : 8);
    if (element === 0x0010) ts = b.toString('latin1', start, start + length).replace(/[\0\s]+$/, '');
    at = start + length;
  }
  if (ts !== TS.deflatedLE) return null;
  return inflateRawSync(b.subarray(metaEnd), { maxOutputLength: MAX_INFLATED_BYTES });
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message.slice(0, 200);
  if (typeof err === 'string') return err.slice(0, 200);
  if (err && typeof err === 'object' && 'exception' in err) return String(err.exception).slice(0, 200);
  return 'unknown error';
}

function deidentifyDataSet(
  ds: DataSet,
  bytes: Uint8Array,
  ctx: DeidentifyContext,
  original: {
    sopClassUid: string;
    sopInstanceUid: string;
    seriesInstanceUid: string;
    studyInstanceUid: string;
  },
): DeidentifyResult {
  const metaTs = uidOf(ds, 'x00020010');
  const sourceTs = hasDicmPreamble(bytes)
    ? (metaTs ?? TS.implicitLE)
    : (ctx.transferSyntaxUid ?? TS.implicitLE);
  // dicom-parser hands a deflated data set back inflated: it is written as explicit little endian.
  const outTs = sourceTs === TS.deflatedLE ? TS.explicitLE : sourceTs;
  const syntax = syntaxOf(outTs);
  const cs = characterSet(asciiOf(ds, 'x00080005') ?? undefined);
  const walk: Walk = { ctx, syntax, cs, identifiers: identifiersOf(ds, cs), changes: [], privateRemoved: 0 };
  const out = processDataSet(ds, walk, '');
  // What PS3.15 E.1.1 and E.3.6 require of a de-identified instance.
  const set = (tag: number, vr: string, value: string) => {
    const i = out.findIndex((e) => e.tag === tag);
    if (i >= 0) out.splice(i, 1);
    out.push({ tag, vr, kind: 'value', value: asciiValue(vr, value) });
  };
  set(0x00120062, 'CS', 'YES');
  set(0x00120063, 'LO', METHOD_DESCRIPTION.join('\\'));
  set(0x00280303, 'CS', 'MODIFIED');
  const codes = out.findIndex((e) => e.tag === 0x00120064);
  if (codes >= 0) out.splice(codes, 1);
  out.push({
    tag: 0x00120064,
    vr: 'SQ',
    kind: 'sequence',
    items: METHOD_CODES.map((c) => [
      { tag: 0x00080100, vr: 'SH', kind: 'value' as const, value: asciiValue('SH', c.value) },
      { tag: 0x00080102, vr: 'SH', kind: 'value' as const, value: asciiValue('SH', 'DCM') },
      { tag: 0x00080104, vr: 'LO', kind: 'value' as const, value: asciiValue('LO', c.meaning) },
    ]),
  });
  const uids = ctx.uids;
  const sopInstanceUid = uids.map(original.sopInstanceUid);
  const file = writePart10({
    sopClassUid: original.sopClassUid,
    sopInstanceUid,
    transferSyntaxUid: outTs,
    implementationClassUid: IMPLEMENTATION_CLASS_UID,
    implementationVersionName: IMPLEMENTATION_VERSION,
    dataSet: out,
    syntax,
  });
  let joined: Buffer | undefined;
  return {
    kind: 'deidentified',
    parts: file.parts,
    size: file.size,
    get bytes() {
      joined ??= Buffer.concat(file.parts, file.size);
      return joined;
    },
    sopClassUid: original.sopClassUid,
    sopInstanceUid,
    seriesInstanceUid: uids.map(original.seriesInstanceUid),
    studyInstanceUid: uids.map(original.studyInstanceUid),
    original: {
      sopInstanceUid: original.sopInstanceUid,
      seriesInstanceUid: original.seriesInstanceUid,
      studyInstanceUid: original.studyInstanceUid,
    },
    changes: walk.changes,
    privateRemoved: walk.privateRemoved,
  };
}

/** Words of the patient's name, ids, birth date, accession number and people and places named in the instance. */
function identifiersOf(ds: DataSet, cs: CharacterSet): string[] {
  const words = new Set<string>();
  const textTags = [
    'x00100010', // Patient's Name
    'x00100020', // Patient ID
    'x00101000', // Other Patient IDs
    'x00101001', // Other Patient Names
    'x00101060', // Patient's Mother's Birth Name
    'x00101040', // Patient's Address
    'x00080050', // Accession Number
    'x00200010', // Study ID
    'x00080090', // Referring Physician's Name
    'x00081050', // Performing Physician's Name
    'x00081060', // Name of Physician(s) Reading Study
    'x00081070', // Operators' Name
    'x00080080', // Institution Name
    'x00081010', // Station Name
  ];
  for (const tag of textTags) {
    const el = ds.elements[tag];
    if (!el || el.items || el.length <= 0 || el.length === UNDEFINED) continue;
    const value = cs.decode(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length));
    for (const w of value.toLowerCase().split(/[\s^=\\,.;:/()-]+/)) if (w.length >= 3) words.add(w);
  }
  const birth = asciiOf(ds, 'x00100030');
  if (birth && birth.length >= 8) words.add(birth.slice(0, 8));
  return [...words];
}

function processDataSet(ds: DataSet, walk: Walk, path: string): OutElement[] {
  const out: OutElement[] = [];
  for (const key of Object.keys(ds.elements)) {
    const el = ds.elements[key]!;
    const tag = Number.parseInt(key.slice(1), 16) >>> 0;
    const group = tag >>> 16;
    // The file meta group is written anew; group lengths are dropped (retired, and would be wrong).
    if (group === 0x0002 || (tag & 0xffff) === 0) continue;
    // Item and delimitation tags never belong in a data set; FFFC is padding, removed by the table.
    if (group === 0xfffe) continue;
    if (group % 2 === 1) {
      walk.privateRemoved++;
      continue;
    }
    const tagHex = key.slice(1).toUpperCase();
    const vr = vrOf(el, tagHex);
    // A sequence written as UN of defined length holds implicit little endian items (PS3.5 §6.2.2):
    // they are read as such, so the profile reaches inside them too.
    if (vr === 'SQ' && !el.items && el.length > 0 && el.length !== UNDEFINED) {
      const items = unknownSequenceItems(ds, el, tagHex);
      if (!items) throw new Error(`unreadable sequence ${tagName(tag)} written as UN`);
      el.items = items;
    }
    const row = profileRow(tagHex);
    const action: ConcreteAction = row ? concreteAction(tableAction(row), vr) : el.items ? 'recurse' : 'keep';
    const name = row?.name ?? '';
    apply(out, ds, el, { tag, vr, action, name, parent: path }, walk);
  }
  return out;
}

function unknownSequenceItems(ds: DataSet, el: Element, tagHex: string): Element[] | null {
  const wrapped = Buffer.alloc(8 + el.length);
  wrapped.writeUInt16LE(Number.parseInt(tagHex.slice(0, 4), 16), 0);
  wrapped.writeUInt16LE(Number.parseInt(tagHex.slice(4), 16), 2);
  wrapped.writeUInt32LE(el.length, 4);
  wrapped.set(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length), 8);
  try {
    const inner = readDataSet(wrapped, { transferSyntaxUid: TS.implicitLE, dictionaryVrs: true });
    return inner.elements[`x${tagHex.toLowerCase()}`]?.items ?? null;
  } catch {
    return null;
  }
}

function vrOf(el: Element, tagHex: string): string {
  if (el.items) return 'SQ';
  // An explicit UN of a standard attribute (written by a tool that did not know it) is read, and
  // written back, as the VR the dictionary gives it: its bytes are the same.
  const vr = el.vr && el.vr !== 'UN' ? el.vr : dictionaryVr(tagHex);
  return vr === 'UN' && el.hadUndefinedLength ? 'SQ' : vr;
}

interface Target {
  tag: number;
  vr: string;
  action: ConcreteAction;
  name: string;
  /** The path of the item holding it ('' at the top level). */
  parent: string;
}

/** An attribute's path, as `AttributeChange` names it: made only for what is recorded or entered. */
const pathOf = (t: Target) => `${t.parent}${t.parent ? ' > ' : ''}${tagName(t.tag)}`;

function rawOf(ds: DataSet, el: Element): Uint8Array {
  if (el.length <= 0 || el.length === UNDEFINED) return new Uint8Array(0);
  return ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
}

function apply(out: OutElement[], ds: DataSet, el: Element, t: Target, walk: Walk) {
  const { tag, vr } = t;
  if (t.action === 'remove') {
    record(walk, t, 'removed', display(ds, el, vr, walk.cs), null);
    return;
  }
  if (el.items || vr === 'SQ') {
    if (t.action === 'empty') {
      if ((el.items?.length ?? 0) > 0) record(walk, t, 'emptied', `${el.items!.length} item(s)`, null);
      out.push({ tag, vr: 'SQ', kind: 'sequence', items: [] });
      return;
    }
    const items = (el.items ?? []).map((item, i) =>
      item.dataSet ? processDataSet(item.dataSet, walk, `${pathOf(t)}[${i + 1}]`) : [],
    );
    out.push({ tag, vr: 'SQ', kind: 'sequence', items });
    return;
  }
  if (el.length === UNDEFINED || el.encapsulatedPixelData) {
    // Encapsulated pixel data: items of fragments and the delimiter, copied as they are.
    if (t.action !== 'keep' && t.action !== 'recurse' && t.action !== 'clean')
      throw new Error(`cannot apply ${t.action} to ${tagName(tag)} of undefined length`);
    out.push({ tag, vr, kind: 'undefined-length', body: undefinedLengthBody(ds, el) });
    return;
  }
  const raw = rawOf(ds, el);
  const value = (v: Uint8Array) => out.push({ tag, vr, kind: 'value', value: v });
  switch (t.action) {
    case 'keep':
    case 'recurse':
      value(raw);
      return;
    case 'empty':
      if (raw.length > 0) record(walk, t, 'emptied', display(ds, el, vr, walk.cs), '');
      value(new Uint8Array(0));
      return;
    case 'uid': {
      if (vr !== 'UI') {
        // A UID action on another VR (never in Table E.1-1 as published): a dummy is as safe.
        return apply(out, ds, el, { ...t, action: 'dummy' }, walk);
      }
      const before = latin1(raw).replace(/[\0\s]+$/, '');
      if (before === '') return value(raw);
      const after = before
        .split('\\')
        .map((u) => walk.ctx.uids.map(u))
        .join('\\');
      record(walk, t, 'replaced', before, after);
      value(asciiValue('UI', after));
      return;
    }
    case 'dummy': {
      if (raw.length === 0) return value(raw);
      if (vr === 'DA' || vr === 'DT') {
        const shifted = shiftDates(latin1(raw), vr, walk.ctx.dateShiftDays);
        record(walk, t, 'shifted', display(ds, el, vr, walk.cs), shifted || null);
        return value(asciiValue(vr, shifted));
      }
      const dummy = dummyValue(vr, raw);
      record(walk, t, 'replaced', display(ds, el, vr, walk.cs), dummyDisplay(vr, dummy));
      value(dummy);
      return;
    }
    case 'clean': {
      if (raw.length === 0) return value(raw);
      if (vr === 'DA' || vr === 'DT') {
        const shifted = shiftDates(latin1(raw), vr, walk.ctx.dateShiftDays);
        record(walk, t, 'shifted', display(ds, el, vr, walk.cs), shifted || null);
        return value(asciiValue(vr, shifted));
      }
      // Times move with their dates by whole days, so a time is already right; so are numbers and codes.
      if (!CLEANABLE_VRS.has(vr)) return value(raw);
      const text = decodeText(raw, vr, walk.cs).toLowerCase();
      const hit = walk.identifiers.some((w) => text.includes(w));
      if (!hit) return value(raw);
      // The descriptor names the patient: it becomes a dummy, so a Type 1 attribute keeps a value.
      const dummy = dummyValue(vr, raw);
      record(walk, t, 'cleaned', display(ds, el, vr, walk.cs), dummyDisplay(vr, dummy));
      value(dummy);
      return;
    }
  }
}

function record(walk: Walk, t: Target, kind: ChangeKind, before: string | null, after: string | null) {
  walk.changes.push({
    path: pathOf(t),
    tag: tagName(t.tag),
    name: t.name,
    kind,
    before,
    after,
  });
}

function latin1(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
}

function decodeText(raw: Uint8Array, vr: string, cs: CharacterSet): string {
  return TEXT_VRS.has(vr) ? cs.decode(raw) : latin1(raw);
}

/** A value as the preview shows it: text decoded, binary as its size. */
function display(ds: DataSet, el: Element, vr: string, cs: CharacterSet): string | null {
  if (el.items) return `${el.items.length} item(s)`;
  const raw = rawOf(ds, el);
  if (raw.length === 0) return null;
  if (TEXT_VRS.has(vr))
    return cs
      .decode(raw)
      .replace(/[\0\s]+$/, '')
      .slice(0, 200);
  if (['UI', 'DA', 'DT', 'TM', 'CS', 'AS', 'IS', 'DS', 'AE', 'UR'].includes(vr))
    return latin1(raw)
      .replace(/[\0\s]+$/, '')
      .slice(0, 200);
  return `${raw.length} bytes`;
}

function dummyDisplay(vr: string, v: Uint8Array): string {
  if (
    ['OB', 'OW', 'OF', 'OD', 'OL', 'OV', 'UN', 'US', 'SS', 'UL', 'SL', 'FL', 'FD', 'AT', 'SV', 'UV'].includes(
      vr,
    )
  )
    return `${v.length} zero bytes`;
  return latin1(v).trim();
}

/**
 * A dummy value of the attribute's VR (E.1.1 "D"): text gets `ANONYMIZED`-style words, numbers 0,
 * binary values are zeroed at their own length so the structure around them still reads.
 */
function dummyValue(vr: string, raw: Uint8Array): Uint8Array {
  switch (vr) {
    case 'PN':
      return asciiValue(vr, 'ANONYMIZED');
    case 'LO':
    case 'SH':
    case 'LT':
    case 'ST':
    case 'UT':
    case 'UC':
    case 'CS':
    case 'AE':
      return asciiValue(vr, 'ANONYMIZED');
    case 'UR':
      return asciiValue(vr, 'urn:anonymized');
    case 'TM':
      return asciiValue(vr, '000000');
    case 'AS':
      return asciiValue(vr, '000Y');
    case 'IS':
    case 'DS':
      return asciiValue(vr, '0');
    default:
      return padded(vr, new Uint8Array(raw.length));
  }
}

const DAY = 86_400_000;

/**
 * Moves every date of a DA or DT value (several values, ranges) by whole days. A value that is not
 * a date it can move is emptied rather than kept.
 */
export function shiftDates(value: string, vr: 'DA' | 'DT' | string, days: number): string {
  const values = value.replace(/[\0\s]+$/, '').split('\\');
  const out: string[] = [];
  for (const v of values) {
    const parts = v.trim().split('-');
    // A DA range is `A-B`; a DT may carry a `-hhmm` offset, so only DA values are split.
    const pieces = vr === 'DA' ? parts : [v.trim()];
    const shifted = pieces.map((p) => (p === '' ? '' : shiftOne(p, vr, days)));
    if (shifted.some((s) => s === null)) return '';
    out.push(shifted.join('-'));
  }
  return out.join('\\');
}

function shiftOne(v: string, vr: string, days: number): string | null {
  const m = /^(\d{4})\.?(\d{2})\.?(\d{2})(.*)$/.exec(v);
  if (!m) return null;
  const [, y, mo, d, rest] = m;
  if (vr === 'DA' && rest !== '') return null;
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d));
  if (Number.isNaN(t)) return null;
  const shifted = new Date(t + days * DAY);
  const out = shifted.toISOString().slice(0, 10).replace(/-/g, '');
  if (shifted.getUTCFullYear() < 1) return null;
  return `${out}${rest}`;
}

/**
 * The bytes of an undefined-length element after its header, up to and including its sequence
 * delimiter: dicom-parser counts the delimiter in `length` for encapsulated pixel data but not
 * everywhere, so the delimiter is checked and added when missing.
 */
function undefinedLengthBody(ds: DataSet, el: Element): Uint8Array {
  const bytes = ds.byteArray;
  const end = el.dataOffset + el.length;
  const isDelimiter = (at: number) =>
    at >= el.dataOffset &&
    at + 8 <= bytes.length &&
    ((bytes[at] === 0xfe && bytes[at + 1] === 0xff && bytes[at + 2] === 0xdd && bytes[at + 3] === 0xe0) ||
      (bytes[at] === 0xff && bytes[at + 1] === 0xfe && bytes[at + 2] === 0xe0 && bytes[at + 3] === 0xdd));
  if (isDelimiter(end - 8)) return bytes.subarray(el.dataOffset, end);
  if (isDelimiter(end)) return bytes.subarray(el.dataOffset, end + 8);
  throw new Error('undefined-length value without its sequence delimiter');
}

/** Which options this engine applies, by their Table E.1-1 column. */
export const OPTIONS_APPLIED = APPLIED_OPTIONS;
