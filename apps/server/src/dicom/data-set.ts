import { inflateRawSync } from 'node:zlib';
import dcmjs from 'dcmjs';
import dicomParser, { type DataSet } from 'dicom-parser';

/** Whether the bytes start with a Part 10 preamble: 128 bytes, then `DICM`. */
export function hasDicmPreamble(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 132 &&
    bytes[128] === 0x44 &&
    bytes[129] === 0x49 &&
    bytes[130] === 0x43 &&
    bytes[131] === 0x4d
  );
}

/**
 * Most bytes the deflated data set of one file may expand to: as much as the upload job reads of a
 * file whole. Deflate expands up to about 1,000 times, so without a cap a file of 1 MB could become
 * a gigabyte in memory (and millions of elements to walk) wherever it is parsed.
 */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** A Deflated Explicit VR file whose data set expands past MAX_INFLATED_BYTES. */
export class InflatedTooLargeError extends Error {
  override readonly name = 'InflatedTooLargeError';
  constructor() {
    super('deflated DICOM file too large once expanded');
  }
}

/** dicom-parser hands us the deflated remainder of a Deflated Explicit VR file to expand. */
export function inflateDeflated(byteArray: Uint8Array, position: number): Uint8Array {
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(byteArray.subarray(position), {
      maxOutputLength: Math.max(1, MAX_INFLATED_BYTES - position),
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new InflatedTooLargeError();
    throw err;
  }
  const out = new Uint8Array(position + inflated.length);
  out.set(byteArray.subarray(0, position));
  out.set(inflated, position);
  return out;
}

export interface ReadDataSetOptions {
  /** Stop before the pixel data (the bytes are a prefix of the file). */
  untilPixelData?: boolean;
  /** Transfer syntax of a file without a Part 10 header; ignored when the file has the preamble. */
  transferSyntaxUid?: string;
  /** Give implicit VR elements their VR from the standard dictionary. */
  dictionaryVrs?: boolean;
}

/**
 * Parses a data set with dicom-parser, Deflated files expanded within MAX_INFLATED_BYTES. Throws
 * what dicom-parser throws (strings, errors, or an object carrying the partial `dataSet`), or
 * InflatedTooLargeError.
 */
export function readDataSet(bytes: Uint8Array, opts: ReadDataSetOptions = {}): DataSet {
  const options = {
    ...(opts.untilPixelData ? { untilTag: 'x7fe00010' } : {}),
    ...(opts.transferSyntaxUid && !hasDicmPreamble(bytes)
      ? { TransferSyntaxUID: opts.transferSyntaxUid }
      : {}),
    inflater: inflateDeflated,
    ...(opts.dictionaryVrs ? { vrCallback: (tag: string) => dictionaryVr(tag.slice(1)) } : {}),
  } as dicomParser.ParseDicomOptions;
  return dicomParser.parseDicom(bytes, options);
}

/**
 * Whether a value declares more bytes than the buffer holds. dicom-parser refuses that for explicit
 * VR but lets an implicit VR element run past the end, so a truncated implicit file would parse.
 */
export function runsPastEnd(ds: DataSet): boolean {
  const end = ds.byteArray.length;
  for (const el of Object.values(ds.elements))
    if (!el.hadUndefinedLength && el.dataOffset + el.length > end) return true;
  return false;
}

const dictionary = dcmjs.data.DicomMetaDictionary.dictionary;
const vrCache = new Map<string, string>();

/** The VR of a tag (`0010 0010` as `00100010`) from the standard dictionary; private tags are UN. */
export function dictionaryVr(tag: string): string {
  const t = tag.toUpperCase();
  const cached = vrCache.get(t);
  if (cached) return cached;
  const group = t.slice(0, 4);
  const elem = t.slice(4, 8);
  let vr: string | undefined;
  if (elem === '0000') vr = 'UL';
  else if (parseInt(group, 16) % 2 === 1) vr = elem <= '00FF' && elem >= '0010' ? 'LO' : 'UN';
  else {
    const entry =
      dictionary[`(${group},${elem})`] ??
      dictionary[`(${group.slice(0, 2)}xx,${elem})`] ??
      dictionary[`(${group},${elem.slice(0, 2)}xx)`];
    vr = entry?.vr;
  }
  // Entries such as "US or SS" or "OB or OW": the first is right for the pixel-level tags that use them.
  const out = (vr ?? 'UN').split(/\s|\|/)[0]!.toUpperCase();
  vrCache.set(t, out);
  return out;
}
