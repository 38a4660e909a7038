import { inflateRawSync } from 'node:zlib';
import dicomParser, { type DataSet } from 'dicom-parser';
import { characterSet, type CharacterSet } from './dicom-charset';
import { DEFAULT_MAX_DECODED_BYTES, pixelBudgetProblem, pixelGeometry } from './pixel-budget';

/** What indexing needs from one DICOM instance. Text values are decoded per (0008,0005). */
export interface InstanceHeader {
  kind: 'instance';
  studyInstanceUid: string;
  seriesInstanceUid: string;
  sopInstanceUid: string;
  sopClassUid: string | null;
  transferSyntaxUid: string | null;
  modality: string | null;
  patientName: string | null;
  patientId: string | null;
  /** YYYY-MM-DD */
  patientBirthDate: string | null;
  patientSex: string | null;
  patientAge: string | null;
  /** YYYY-MM-DD */
  studyDate: string | null;
  studyTime: string | null;
  studyDescription: string | null;
  accessionNumber: string | null;
  institutionName: string | null;
  bodyPart: string | null;
  seriesNumber: number | null;
  seriesDescription: string | null;
  instanceNumber: number | null;
}

/** A DICOMDIR: the index of a CD/DVD. Its records name the files of the media. */
export interface DicomDirHeader {
  kind: 'dicomdir';
  /** Referenced File IDs as path components, with the transfer syntax the record declares. */
  files: Array<{ path: string[]; transferSyntaxUid: string | null }>;
}

/** A file that is not a usable DICOM instance; `reason` is shown to the user. */
export class NotDicomError extends Error {
  override readonly name = 'NotDicomError';
}

export const DICOMDIR_SOP_CLASS = '1.2.840.10008.1.3.10';
const IMPLICIT_LITTLE_ENDIAN = '1.2.840.10008.1.2';

export function hasDicmPreamble(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 132 &&
    bytes[128] === 0x44 &&
    bytes[129] === 0x49 &&
    bytes[130] === 0x43 &&
    bytes[131] === 0x4d
  );
}

export interface ParseOptions {
  /**
   * The buffer holds the whole file, so a value running past its end means the file is truncated.
   * When false the buffer is a prefix and parsing stops before the pixel data.
   */
  complete: boolean;
  /** For files without a Part 10 header (allowed only when a DICOMDIR references them). */
  transferSyntaxUid?: string;
  /** Size of the whole file when `bytes` is a prefix: the most pixel data it can hold. */
  fileSize?: number;
  /** Decoded image size an instance may declare (see pixel-budget.ts). */
  maxDecodedBytes?: number;
}

/** A DICOM UID: dot-separated numbers, at most 64 characters (the viewer's URLs rely on it). */
export function isValidUid(value: string): boolean {
  return value.length <= 64 && /^[0-9]+(\.[0-9]+)*$/.test(value);
}

/** Parses a DICOM header. Throws NotDicomError with a user-facing reason for anything unusable. */
export function parseDicomHeader(bytes: Uint8Array, opts: ParseOptions): InstanceHeader | DicomDirHeader {
  const preamble = hasDicmPreamble(bytes);
  if (!preamble && !opts.transferSyntaxUid) throw new NotDicomError('not a DICOM file (no DICM preamble)');
  let ds: DataSet;
  try {
    ds = dicomParser.parseDicom(bytes, {
      ...(opts.complete ? {} : { untilTag: 'x7fe00010' }),
      ...(!preamble && opts.transferSyntaxUid ? { TransferSyntaxUID: opts.transferSyntaxUid } : {}),
      inflater: inflateDeflated,
    } as dicomParser.ParseDicomOptions);
  } catch (err) {
    throw err instanceof NotDicomError ? err : new NotDicomError(describeParseError(err));
  }
  if (opts.complete && runsPastEnd(ds)) throw new NotDicomError('truncated or malformed DICOM file');

  const cs = characterSet(ascii(ds, 'x00080005'));
  const sopClassUid = uid(ds, 'x00080016') ?? uid(ds, 'x00020002');
  if (sopClassUid === DICOMDIR_SOP_CLASS || ds.elements.x00041220) return readDicomDir(ds);

  const studyInstanceUid = uid(ds, 'x0020000d');
  const seriesInstanceUid = uid(ds, 'x0020000e');
  const sopInstanceUid = uid(ds, 'x00080018') ?? uid(ds, 'x00020003');
  if (!studyInstanceUid || !seriesInstanceUid || !sopInstanceUid) {
    throw new NotDicomError('DICOM file without Study, Series or SOP Instance UID');
  }
  if (!isValidUid(studyInstanceUid) || !isValidUid(seriesInstanceUid) || !isValidUid(sopInstanceUid))
    throw new NotDicomError('DICOM file with an invalid Study, Series or SOP Instance UID');
  const geometry = pixelGeometry(ds, opts.complete ? undefined : opts.fileSize);
  const problem = geometry && pixelBudgetProblem(geometry, opts.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES);
  if (problem) throw new NotDicomError(problem);
  return {
    kind: 'instance',
    studyInstanceUid,
    seriesInstanceUid,
    sopInstanceUid,
    sopClassUid,
    transferSyntaxUid:
      uid(ds, 'x00020010') ?? (preamble ? null : (opts.transferSyntaxUid ?? IMPLICIT_LITTLE_ENDIAN)),
    modality: cleanCode(ascii(ds, 'x00080060')),
    patientName: personName(ds, 'x00100010', cs),
    patientId: text(ds, 'x00100020', cs),
    patientBirthDate: dicomDate(ascii(ds, 'x00100030')),
    patientSex: cleanCode(ascii(ds, 'x00100040')),
    patientAge: cleanCode(ascii(ds, 'x00101010')),
    studyDate: dicomDate(ascii(ds, 'x00080020')),
    studyTime: cleanCode(ascii(ds, 'x00080030')),
    studyDescription: text(ds, 'x00081030', cs),
    accessionNumber: text(ds, 'x00080050', cs),
    institutionName: text(ds, 'x00080080', cs),
    bodyPart: cleanCode(ascii(ds, 'x00180015')),
    seriesNumber: integer(ascii(ds, 'x00200011')),
    seriesDescription: text(ds, 'x0008103e', cs),
    instanceNumber: integer(ascii(ds, 'x00200013')),
  };
}

/**
 * Whether a value declares more bytes than the file holds. dicom-parser refuses that for explicit
 * VR but lets an implicit VR element run past the end, so a truncated implicit file would parse.
 */
function runsPastEnd(ds: DataSet): boolean {
  const end = ds.byteArray.length;
  for (const el of Object.values(ds.elements))
    if (!el.hadUndefinedLength && el.dataOffset + el.length > end) return true;
  return false;
}

function readDicomDir(ds: DataSet): DicomDirHeader {
  const files: DicomDirHeader['files'] = [];
  for (const item of ds.elements.x00041220?.items ?? []) {
    const rec = item.dataSet;
    if (!rec) continue;
    const fileId = ascii(rec, 'x00041500');
    if (!fileId) continue;
    const parts = fileId
      .split('\\')
      .map((p) => p.trim())
      .filter(Boolean);
    if (parts.length > 0) files.push({ path: parts, transferSyntaxUid: uid(rec, 'x00041512') });
  }
  return { kind: 'dicomdir', files };
}

/**
 * Most bytes the deflated data set of one file may expand to: as much as the job reads of a file
 * whole. Deflate expands up to about 1,000 times, so without a cap a file of 1 MB could become a
 * gigabyte in memory (and millions of elements to walk) wherever it is parsed.
 */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** dicom-parser hands us the deflated remainder of a Deflated Explicit VR file to expand. */
export function inflateDeflated(byteArray: Uint8Array, position: number): Uint8Array {
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(byteArray.subarray(position), {
      maxOutputLength: Math.max(1, MAX_INFLATED_BYTES - position),
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new NotDicomError('deflated DICOM file too large once expanded');
    throw err;
  }
  const out = new Uint8Array(position + inflated.length);
  out.set(byteArray.subarray(0, position));
  out.set(inflated, position);
  return out;
}

function describeParseError(err: unknown): string {
  const message =
    typeof err === 'string'
      ? err
      : err instanceof Error
        ? err.message
        : String((err as { exception?: unknown })?.exception ?? err);
  if (/overrun|greater than or equal|maxPosition|beyond|past the end/i.test(message))
    return 'truncated or malformed DICOM file';
  if (/missing required meta header/i.test(message)) return 'DICOM file with an incomplete file meta header';
  return 'malformed DICOM file';
}

function rawBytes(ds: DataSet, tag: string): Uint8Array | null {
  const el = ds.elements[tag];
  if (!el || el.length <= 0 || el.length === 0xffffffff) return null;
  return ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
}

/** Values of VR that are always ASCII (UI, DA, TM, CS, IS, AS). */
function ascii(ds: DataSet, tag: string): string | undefined {
  const b = rawBytes(ds, tag);
  if (!b) return undefined;
  let s = '';
  for (const c of b) s += String.fromCharCode(c);
  return s.replace(/[\0\s]+$/, '').replace(/^\s+/, '');
}

function uid(ds: DataSet, tag: string): string | null {
  const v = ascii(ds, tag)?.replace(/\0/g, '').trim();
  return v ? v : null;
}

function cleanCode(v: string | undefined): string | null {
  const t = v?.split('\\')[0]?.trim();
  return t ? t : null;
}

function text(ds: DataSet, tag: string, cs: CharacterSet): string | null {
  const b = rawBytes(ds, tag);
  if (!b) return null;
  const v = cs.decode(b).replace(/\0/g, '').split('\\')[0]?.trim();
  return v ? v : null;
}

/** First value of a PN, with empty trailing component groups (`A^B=`) dropped. */
function personName(ds: DataSet, tag: string, cs: CharacterSet): string | null {
  const v = text(ds, tag, cs);
  if (!v) return null;
  const trimmed = v.replace(/[=\s]+$/, '');
  return trimmed ? trimmed : null;
}

function dicomDate(v: string | undefined): string | null {
  const m = /^(\d{4})\.?(\d{2})\.?(\d{2})/.exec(v ?? '');
  if (!m) return null;
  const [, y, mo, d] = m;
  const date = new Date(`${y}-${mo}-${d}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  return `${y}-${mo}-${d}`;
}

function integer(v: string | undefined): number | null {
  const t = v?.split('\\')[0]?.trim();
  if (!t || !/^[+-]?\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && Math.abs(n) <= 2_147_483_647 ? n : null;
}
