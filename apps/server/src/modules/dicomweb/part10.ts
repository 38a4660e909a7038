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

/** The instance's data set as DICOM JSON. Pixel data and large binaries become BulkDataURIs. */
export function toDicomJson(p: ParsedInstance, opts: JsonOptions): DicomJson {
  const cs = dataSetCharacterSet(p.ds);
  const out = datasetToJson(p.ds, p, cs, opts, true);
  // The file meta group describes the file, not the instance, except for what clients use to decode.
  const ts = p.transferSyntaxUid;
  out['00020010'] = { vr: 'UI', Value: [ts] };
  return out;
}

function datasetToJson(
  ds: DataSet,
  p: ParsedInstance,
  cs: CharacterSet,
  opts: JsonOptions,
  top: boolean,
): DicomJson {
  const out: DicomJson = {};
  const keys = Object.keys(ds.elements).sort();
  for (const key of keys) {
    const el = ds.elements[key]!;
    const tag = key.slice(1).toUpperCase();
    if (tag.startsWith('0002') && top) continue;
    if (tag.endsWith('0000') || tag.startsWith('FFFE')) continue;
    const vr = (el.vr ?? dictionaryVr(tag)).toUpperCase();
    out[tag] = elementToJson(ds, el, tag, vr, p, cs, opts, top);
  }
  return out;
}

function elementToJson(
  ds: DataSet,
  el: Element,
  tag: string,
  vr: string,
  p: ParsedInstance,
  cs: CharacterSet,
  opts: JsonOptions,
  top: boolean,
): DicomJsonValue {
  if (vr === 'SQ' || el.items) {
    const items = (el.items ?? []).map((item) =>
      item.dataSet ? datasetToJson(item.dataSet, p, cs, opts, false) : {},
    );
    return items.length ? { vr: 'SQ', Value: items } : { vr: 'SQ' };
  }
  const available = el.dataOffset + (el.length ?? 0) <= ds.byteArray.length;
  if (tag === '7FE00010' || BINARY_VRS.has(vr)) return binaryToJson(ds, el, tag, vr, available, opts, top);
  if (!available || !el.length) return { vr };
  if (STRING_VRS.has(vr)) return stringToJson(ds, el, vr, cs);
  return numbersToJson(ds, el, tag, vr, p);
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

/** Text VRs: decoded in the data set's character set, split into values; person names by group. */
function stringToJson(ds: DataSet, el: Element, vr: string, cs: CharacterSet): DicomJsonValue {
  const raw = ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
  const text = TEXT_VRS.has(vr)
    ? cs.decode(raw)
    : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  const parts = SINGLE_VALUED.has(vr) ? [trimTextValue(text)] : text.split('\\');
  const values = parts.map((v) =>
    vr === 'UI' ? trimUidValue(v) : vr === 'LT' || vr === 'ST' || vr === 'UT' ? v : trimStringValue(v),
  );
  if (values.every((v) => v === '')) return { vr };
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
  if (vr === 'DS' || vr === 'IS') {
    return {
      vr,
      Value: values
        .map((v) => (v === '' ? null : Number(v)))
        .map((n) => (n === null || Number.isFinite(n) ? n : null)),
    };
  }
  return { vr, Value: values.map((v) => (v === '' ? null : v)) };
}

/** Numeric and tag VRs, read in the file's byte order; anything else unknown, as UN. */
function numbersToJson(ds: DataSet, el: Element, tag: string, vr: string, p: ParsedInstance): DicomJsonValue {
  const count = (size: number) => Math.floor(el.length / size);
  const read = (size: number, fn: (i: number) => unknown) => ({
    vr,
    Value: Array.from({ length: count(size) }, (_, i) => fn(i)),
  });
  switch (vr) {
    case 'US':
      return read(2, (i) => ds.uint16(`x${tag.toLowerCase()}`, i));
    case 'SS':
      return read(2, (i) => ds.int16(`x${tag.toLowerCase()}`, i));
    case 'UL':
      return read(4, (i) => ds.uint32(`x${tag.toLowerCase()}`, i));
    case 'SL':
      return read(4, (i) => ds.int32(`x${tag.toLowerCase()}`, i));
    case 'FL':
      return read(4, (i) => ds.float(`x${tag.toLowerCase()}`, i));
    case 'FD':
      return read(8, (i) => ds.double(`x${tag.toLowerCase()}`, i));
    case 'AT':
      return read(4, (i) => {
        const g = ds.uint16(`x${tag.toLowerCase()}`, i * 2)!;
        const e = ds.uint16(`x${tag.toLowerCase()}`, i * 2 + 1)!;
        return `${g.toString(16).padStart(4, '0')}${e.toString(16).padStart(4, '0')}`.toUpperCase();
      });
    case 'UV':
    case 'SV': {
      const bytes = Buffer.from(ds.byteArray.buffer, ds.byteArray.byteOffset + el.dataOffset, el.length);
      const le = p.transferSyntaxUid !== TS.explicitBE;
      return {
        vr,
        Value: Array.from({ length: count(8) }, (_, i) => {
          const v =
            vr === 'UV'
              ? le
                ? bytes.readBigUInt64LE(i * 8)
                : bytes.readBigUInt64BE(i * 8)
              : le
                ? bytes.readBigInt64LE(i * 8)
                : bytes.readBigInt64BE(i * 8);
          return Number(v);
        }),
      };
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
