import dicomParser, { type DataSet, type Element } from 'dicom-parser';
import type { CharacterSet } from '../../dicom/charset';
import { dictionaryVr, readDataSet } from '../../dicom/data-set';
import { TS } from '../../dicom/transfer-syntax';
import {
  dataSetCharacterSet,
  numberOfFrames,
  trimStringValue,
  trimTextValue,
  trimUidValue,
  uid,
} from '../../dicom/values';

/** DICOM JSON (PS3.18 F.2): tag → { vr, Value | InlineBinary | BulkDataURI }. */
export type DicomJsonValue = { vr: string; Value?: unknown[]; InlineBinary?: string; BulkDataURI?: string };
export type DicomJson = Record<string, DicomJsonValue>;

/** The stored file cannot be read (damaged or not DICOM); `frame` is set when only that frame is affected. */
export class DicomReadError extends Error {
  override readonly name = 'DicomReadError';
}

export interface ParsedInstance {
  ds: DataSet;
  transferSyntaxUid: string;
  /** The parser stopped early: the file is cut short somewhere. */
  truncated: boolean;
  bytes: Uint8Array;
}

/**
 * Parses a stored instance. A file that ends early still yields what was read before the cut,
 * so its metadata can be served and only the pixel data it lacks fails.
 */
export function parseInstance(bytes: Uint8Array, storedTransferSyntax?: string | null): ParsedInstance {
  try {
    const ds = readDataSet(bytes, {
      transferSyntaxUid: storedTransferSyntax || TS.implicitLE,
      dictionaryVrs: true,
    });
    return {
      ds,
      transferSyntaxUid: transferSyntaxOf(ds, storedTransferSyntax),
      truncated: false,
      bytes: ds.byteArray,
    };
  } catch (err) {
    const partial = (err as { dataSet?: DataSet }).dataSet;
    if (partial && partial.elements) {
      return {
        ds: partial,
        transferSyntaxUid: transferSyntaxOf(partial, storedTransferSyntax),
        truncated: true,
        bytes: partial.byteArray,
      };
    }
    throw new DicomReadError(
      typeof err === 'string' ? err : ((err as Error).message ?? 'unreadable DICOM file'),
    );
  }
}

/**
 * Parses the part of a stored instance before its top-level Pixel Data (7FE0,0010), which `bytes`
 * may stop anywhere after: the Pixel Data element is in the result with its header only (offset,
 * length, VR), its value is not read. Throws what readDataSet throws, including when `bytes` end
 * before the Pixel Data element; a data set without Pixel Data parses to its end.
 */
export function parseInstanceHeader(bytes: Uint8Array, storedTransferSyntax?: string | null): ParsedInstance {
  const ds = readDataSet(bytes, {
    transferSyntaxUid: storedTransferSyntax || TS.implicitLE,
    dictionaryVrs: true,
    untilPixelData: true,
  });
  return {
    ds,
    transferSyntaxUid: transferSyntaxOf(ds, storedTransferSyntax),
    truncated: false,
    bytes: ds.byteArray,
  };
}

function transferSyntaxOf(ds: DataSet, stored?: string | null): string {
  return uid(ds, 'x00020010') ?? (stored ?? TS.implicitLE).replace(/\0/g, '').trim();
}

// --- DICOM JSON -----------------------------------------------------------------------------

const STRING_VRS = new Set([
  'AE',
  'AS',
  'CS',
  'DA',
  'DT',
  'TM',
  'UI',
  'LO',
  'SH',
  'PN',
  'UC',
  'LT',
  'ST',
  'UT',
  'UR',
  'DS',
  'IS',
]);
const SINGLE_VALUED = new Set(['LT', 'ST', 'UT', 'UR']);
const TEXT_VRS = new Set(['LO', 'SH', 'PN', 'UC', 'LT', 'ST', 'UT']);
const BINARY_VRS = new Set(['OB', 'OW', 'OF', 'OD', 'OL', 'OV', 'UN']);
/** Binary values larger than this are referenced by BulkDataURI instead of inlined. */
const INLINE_BINARY_MAX = 1024;

export interface JsonOptions {
  /** Base of the instance's URI (…/studies/S/series/SE/instances/I); binary values refer to `${base}/bulkdata/<tag>`. */
  bulkBase: string;
}

/** Transfer Syntax UID: the one attribute of the file meta group that DICOM JSON keeps. */
const TRANSFER_SYNTAX_TAG = '00020010';

/** What converting one instance needs at hand. */
interface JsonContext {
  p: ParsedInstance;
  cs: CharacterSet;
  /** The data set's bytes as a Buffer, for decoding without a copy. */
  buf: Buffer;
  /** Text in this character set is its bytes, one character each, when they are all ASCII. */
  asciiText: boolean;
  opts: JsonOptions;
}

/**
 * The instance's data set as DICOM JSON, its top-level attributes in tag order. Pixel data and
 * large binaries become BulkDataURIs.
 */
export function toDicomJson(p: ParsedInstance, opts: JsonOptions): DicomJson {
  // The file meta group describes the file, not the instance, except for what clients use to decode.
  return datasetToJson(p.ds, jsonContext(p, opts), { vr: 'UI', Value: [p.transferSyntaxUid] });
}

function jsonContext(p: ParsedInstance, opts: JsonOptions): JsonContext {
  const cs = dataSetCharacterSet(p.ds);
  const ba = p.ds.byteArray;
  return {
    p,
    cs,
    buf: Buffer.isBuffer(ba) ? ba : Buffer.from(ba.buffer, ba.byteOffset, ba.byteLength),
    asciiText: asciiCompatible(cs),
    opts,
  };
}

/**
 * What dicomJsonText remembers of the instances before: each top-level value's bytes and its JSON,
 * so a value that the next instance repeats byte for byte (most of a series' header: patient,
 * study, series, equipment, image size) is not decoded again. For instances of one transfer
 * syntax and character set; another starts it afresh.
 */
export interface JsonMemo {
  context: string;
  values: Map<string, { vr: string; bytes: Uint8Array; json: string }>;
}

export function jsonMemo(): JsonMemo {
  return { context: '', values: new Map() };
}

/**
 * toDicomJson as JSON text (the same attributes and values, in tag order), with the values that
 * `memo` already holds taken from it.
 */
export function dicomJsonText(p: ParsedInstance, opts: JsonOptions, memo: JsonMemo): string {
  const ctx = jsonContext(p, opts);
  const ds = p.ds;
  const context = `${p.transferSyntaxUid}|${ctx.buf.toString('latin1', ...valueRange(ds, 'x00080005'))}`;
  if (memo.context !== context) {
    memo.values.clear();
    memo.context = context;
  }
  const syntax = `"${TRANSFER_SYNTAX_TAG}":${JSON.stringify({ vr: 'UI', Value: [p.transferSyntaxUid] })}`;
  const parts: string[] = [];
  let syntaxPending = true;
  for (const key of Object.keys(ds.elements).sort()) {
    const el = ds.elements[key]!;
    const tag = key.slice(1).toUpperCase();
    if (syntaxPending && tag > TRANSFER_SYNTAX_TAG) {
      parts.push(syntax);
      syntaxPending = false;
    }
    if (tag.startsWith('0002') || tag.endsWith('0000') || tag.startsWith('FFFE')) continue;
    const vr = (el.vr ?? dictionaryVr(tag)).toUpperCase();
    parts.push(`"${tag}":${memoizedJson(ds, el, key, tag, vr, ctx, memo)}`);
  }
  if (syntaxPending) parts.push(syntax);
  return `{${parts.join(',')}}`;
}

/** Start and end of a top-level value in the data set's bytes (empty when absent). */
function valueRange(ds: DataSet, key: string): [number, number] {
  const el = ds.elements[key];
  if (!el || !(el.length > 0) || el.dataOffset + el.length > ds.byteArray.length) return [0, 0];
  return [el.dataOffset, el.dataOffset + el.length];
}

/** One top-level attribute's JSON; text and numbers from `memo` when their bytes are the same. */
function memoizedJson(
  ds: DataSet,
  el: Element,
  key: string,
  tag: string,
  vr: string,
  ctx: JsonContext,
  memo: JsonMemo,
): string {
  const end = el.dataOffset + el.length;
  // Sequences, binary values and bulk data depend on more than their bytes (items, the instance's URI).
  if (vr === 'SQ' || el.items || tag === '7FE00010' || BINARY_VRS.has(vr) || !(end <= ds.byteArray.length))
    return JSON.stringify(elementToJson(ds, el, key, tag, vr, ctx, true));
  const bytes = ds.byteArray.subarray(el.dataOffset, end);
  const known = memo.values.get(tag);
  if (known && known.vr === vr && sameBytes(known.bytes, bytes)) return known.json;
  const json = JSON.stringify(elementToJson(ds, el, key, tag, vr, ctx, true));
  memo.values.set(tag, { vr, bytes, json });
  return json;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  if (a.length > 32) return Buffer.compare(a, b) === 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Character sets whose decoding of ASCII bytes is those bytes (no code extensions, no JIS X 0201). */
function asciiCompatible(cs: CharacterSet): boolean {
  if (cs.terms.length > 1) return false;
  const term = (cs.terms[0] ?? '').toUpperCase();
  return term === '' || term === 'ISO_IR 6' || term === 'ISO_IR 100' || term === 'ISO_IR 192';
}

/** A data set's attributes in tag order; at the top level (`transferSyntax` given) with the transfer syntax in its place. */
function datasetToJson(ds: DataSet, ctx: JsonContext, transferSyntax?: DicomJsonValue): DicomJson {
  const top = transferSyntax !== undefined;
  const out: DicomJson = {};
  let syntaxPending = top;
  // dicom-parser's keys are `x` and lower-case hex, so they sort in the order of the tags.
  const keys = Object.keys(ds.elements).sort();
  for (const key of keys) {
    const el = ds.elements[key]!;
    const tag = key.slice(1).toUpperCase();
    if (syntaxPending && tag > TRANSFER_SYNTAX_TAG) {
      out[TRANSFER_SYNTAX_TAG] = transferSyntax!;
      syntaxPending = false;
    }
    if (top && tag.startsWith('0002')) continue;
    if (tag.endsWith('0000') || tag.startsWith('FFFE')) continue;
    const vr = (el.vr ?? dictionaryVr(tag)).toUpperCase();
    out[tag] = elementToJson(ds, el, key, tag, vr, ctx, top);
  }
  if (syntaxPending) out[TRANSFER_SYNTAX_TAG] = transferSyntax!;
  return out;
}

function elementToJson(
  ds: DataSet,
  el: Element,
  key: string,
  tag: string,
  vr: string,
  ctx: JsonContext,
  top: boolean,
): DicomJsonValue {
  if (vr === 'SQ' || el.items) {
    const items = el.items ?? [];
    if (items.length === 0) return { vr: 'SQ' };
    const values: DicomJson[] = new Array<DicomJson>(items.length);
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!.dataSet;
      values[i] = item ? datasetToJson(item, ctx) : {};
    }
    return { vr: 'SQ', Value: values };
  }
  const available = el.dataOffset + (el.length ?? 0) <= ds.byteArray.length;
  if (tag === '7FE00010' || BINARY_VRS.has(vr))
    return binaryToJson(ds, el, tag, vr, available, ctx.opts, top);
  if (!available || !el.length) return { vr };
  if (STRING_VRS.has(vr)) return stringToJson(ds, el, vr, ctx);
  return numbersToJson(ds, el, key, vr, ctx.p);
}

/** Pixel data and binary VRs: a BulkDataURI at the top level when large, else inline base64. */
function binaryToJson(
  ds: DataSet,
  el: Element,
  tag: string,
  vr: string,
  available: boolean,
  opts: JsonOptions,
  top: boolean,
): DicomJsonValue {
  if (top && (tag === '7FE00010' || el.length > INLINE_BINARY_MAX || el.encapsulatedPixelData)) {
    return { vr, BulkDataURI: `${opts.bulkBase}/bulkdata/${tag}` };
  }
  if (!available || el.length === 0 || el.length === undefined) return { vr };
  const bytes = ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
  return {
    vr,
    InlineBinary: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  };
}

/** The value's bytes as text: in the data set's character set for text VRs, else Latin-1. */
function valueText(ds: DataSet, el: Element, vr: string, ctx: JsonContext): string {
  const start = el.dataOffset;
  const end = start + el.length;
  const ba = ds.byteArray;
  const buf = ba === ctx.p.ds.byteArray ? ctx.buf : Buffer.from(ba.buffer, ba.byteOffset, ba.byteLength);
  if (!TEXT_VRS.has(vr)) return buf.toString('latin1', start, end);
  if (ctx.asciiText) {
    let ascii = true;
    for (let i = start; i < end; i++)
      if (ba[i]! > 0x7f) {
        ascii = false;
        break;
      }
    if (ascii) return buf.toString('latin1', start, end);
  }
  return ctx.cs.decode(ba.subarray(start, end));
}

/** Text VRs: decoded in the data set's character set, split into values; person names by group. */
function stringToJson(ds: DataSet, el: Element, vr: string, ctx: JsonContext): DicomJsonValue {
  const text = valueText(ds, el, vr, ctx);
  const values = SINGLE_VALUED.has(vr) ? [trimTextValue(text)] : text.split('\\');
  const trim =
    vr === 'UI' ? trimUidValue : vr === 'LT' || vr === 'ST' || vr === 'UT' ? null : trimStringValue;
  let empty = true;
  for (let i = 0; i < values.length; i++) {
    const v = trim ? trim(values[i]!) : values[i]!;
    values[i] = v;
    if (v !== '') empty = false;
  }
  if (empty) return { vr };
  if (vr === 'PN') {
    return {
      vr,
      Value: values.map((v) => {
        if (v === '') return null;
        const [a, i, ph] = v.split('=');
        return {
          ...(a ? { Alphabetic: a } : {}),
          ...(i ? { Ideographic: i } : {}),
          ...(ph ? { Phonetic: ph } : {}),
        };
      }),
    };
  }
  const out: unknown[] = new Array<unknown>(values.length);
  if (vr === 'DS' || vr === 'IS') {
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      const n = v === '' ? null : Number(v);
      out[i] = n === null || Number.isFinite(n) ? n : null;
    }
  } else {
    for (let i = 0; i < values.length; i++) out[i] = values[i] === '' ? null : values[i];
  }
  return { vr, Value: out };
}

/** Numeric and tag VRs, read in the file's byte order; anything else unknown, as UN. */
function numbersToJson(ds: DataSet, el: Element, key: string, vr: string, p: ParsedInstance): DicomJsonValue {
  const read = (size: number, fn: (i: number) => unknown): DicomJsonValue => {
    const values: unknown[] = new Array<unknown>(Math.floor(el.length / size));
    for (let i = 0; i < values.length; i++) values[i] = fn(i);
    return { vr, Value: values };
  };
  switch (vr) {
    case 'US':
      return read(2, (i) => ds.uint16(key, i));
    case 'SS':
      return read(2, (i) => ds.int16(key, i));
    case 'UL':
      return read(4, (i) => ds.uint32(key, i));
    case 'SL':
      return read(4, (i) => ds.int32(key, i));
    case 'FL':
      return read(4, (i) => ds.float(key, i));
    case 'FD':
      return read(8, (i) => ds.double(key, i));
    case 'AT':
      return read(4, (i) => {
        const g = ds.uint16(key, i * 2)!;
        const e = ds.uint16(key, i * 2 + 1)!;
        return `${g.toString(16).padStart(4, '0')}${e.toString(16).padStart(4, '0')}`.toUpperCase();
      });
    case 'UV':
    case 'SV': {
      const bytes = Buffer.from(ds.byteArray.buffer, ds.byteArray.byteOffset + el.dataOffset, el.length);
      const le = p.transferSyntaxUid !== TS.explicitBE;
      return read(8, (i) => {
        const v =
          vr === 'UV'
            ? le
              ? bytes.readBigUInt64LE(i * 8)
              : bytes.readBigUInt64BE(i * 8)
            : le
              ? bytes.readBigInt64LE(i * 8)
              : bytes.readBigInt64BE(i * 8);
        return Number(v);
      });
    }
    default: {
      const bytes = ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
      return {
        vr: 'UN',
        InlineBinary: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
      };
    }
  }
}

/** Raw bytes of a top-level value (bulk data), or null when the file has no such value. */
export function bulkValue(p: ParsedInstance, tag: string): Uint8Array | null {
  const el = p.ds.elements[`x${tag.toLowerCase()}`];
  if (!el || el.items) return null;
  if (el.encapsulatedPixelData) {
    const end = el.dataOffset + (el.length ?? 0);
    if (el.length === undefined || el.length < 0 || end > p.bytes.length)
      throw new DicomReadError('the value is cut short in the stored file');
    return p.bytes.subarray(el.dataOffset, end);
  }
  const end = el.dataOffset + el.length;
  if (end > p.bytes.length) throw new DicomReadError('the value is cut short in the stored file');
  return p.bytes.subarray(el.dataOffset, end);
}

// --- frames ---------------------------------------------------------------------------------

export interface FrameInfo {
  count: number;
  /** Encapsulated (compressed) pixel data, one codestream per frame. */
  encapsulated: boolean;
}

export function frameInfo(p: ParsedInstance): FrameInfo | null {
  const el = p.ds.elements.x7fe00010 ?? p.ds.elements.x7fe00008 ?? p.ds.elements.x7fe00009;
  if (!el) return null;
  return { count: numberOfFrames(p.ds), encapsulated: Boolean(el.encapsulatedPixelData) };
}

/**
 * One frame's bytes (`index` from 0). Native frames are returned little-endian whatever the
 * stored byte order; encapsulated frames are the stored codestream. Throws DicomReadError when
 * the stored file does not hold the whole frame.
 */
export function readFrame(p: ParsedInstance, index: number): Uint8Array {
  const key = p.ds.elements.x7fe00010 ? 'x7fe00010' : p.ds.elements.x7fe00008 ? 'x7fe00008' : 'x7fe00009';
  const el = p.ds.elements[key];
  if (!el) throw new DicomReadError('the instance has no pixel data');
  const info = frameInfo(p)!;
  if (el.encapsulatedPixelData) {
    try {
      const fragments = el.fragments ?? [];
      if (fragments.length === 0)
        throw new DicomReadError(`frame ${index + 1} is missing from the stored file`);
      const last = fragments[fragments.length - 1]!;
      if (last.position + last.length > p.bytes.length)
        throw new DicomReadError(`frame ${index + 1} is cut short in the stored file`);
      if (info.count === 1)
        return dicomParser.readEncapsulatedPixelDataFromFragments(p.ds, el, 0, fragments.length);
      if ((el.basicOffsetTable ?? []).length > 0)
        return dicomParser.readEncapsulatedImageFrame(p.ds, el, index);
      if (fragments.length === info.count)
        return dicomParser.readEncapsulatedPixelDataFromFragments(p.ds, el, index, 1);
      const table = dicomParser.createJPEGBasicOffsetTable(p.ds, el);
      return dicomParser.readEncapsulatedImageFrame(p.ds, el, index, table);
    } catch (err) {
      if (err instanceof DicomReadError) throw err;
      throw new DicomReadError(`frame ${index + 1} cannot be read from the stored file`);
    }
  }
  const rows = p.ds.uint16('x00280010') ?? 0;
  const cols = p.ds.uint16('x00280011') ?? 0;
  const spp = p.ds.uint16('x00280002') ?? 1;
  const bits = key === 'x7fe00010' ? (p.ds.uint16('x00280100') ?? 8) : key === 'x7fe00008' ? 32 : 64;
  const frameBits = rows * cols * spp * bits;
  let start: number;
  let length: number;
  if (frameBits % 8 === 0) {
    length = frameBits / 8;
    start = el.dataOffset + index * length;
  } else {
    // 1-bit data: frames are packed back to back; hand out the bytes that hold this frame.
    start = el.dataOffset + Math.floor((index * frameBits) / 8);
    length = Math.ceil(((index + 1) * frameBits) / 8) - Math.floor((index * frameBits) / 8);
  }
  if (length <= 0) throw new DicomReadError('the instance has no image size');
  const end = start + length;
  if (end > el.dataOffset + el.length || end > p.bytes.length)
    throw new DicomReadError(`frame ${index + 1} is cut short in the stored file`);
  const frame = p.bytes.subarray(start, end);
  if (p.transferSyntaxUid === TS.explicitBE && bits > 8) {
    const swapped = Buffer.from(frame);
    if (bits === 16) swapped.swap16();
    else if (bits === 32) swapped.swap32();
    else if (bits === 64) swapped.swap64();
    return swapped;
  }
  return frame;
}
