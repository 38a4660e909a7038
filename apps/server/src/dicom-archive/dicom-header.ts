import type { DataSet } from 'dicom-parser';
import { hasDicmPreamble, InflatedTooLargeError, readDataSet, runsPastEnd } from '../dicom/data-set';
import { DEFAULT_MAX_DECODED_BYTES, pixelBudgetProblem, pixelGeometry } from '../dicom/pixel-budget';
import { IMPLICIT_LITTLE_ENDIAN } from '../dicom/transfer-syntax';
import {
  ascii,
  dataSetCharacterSet,
  dicomDate,
  firstCode,
  integer,
  personName,
  text,
  uid,
} from '../dicom/values';

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
  /** Decoded image size an instance may declare (see dicom/pixel-budget.ts). */
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
    ds = readDataSet(bytes, { untilPixelData: !opts.complete, transferSyntaxUid: opts.transferSyntaxUid });
  } catch (err) {
    if (err instanceof InflatedTooLargeError) throw new NotDicomError(err.message);
    throw new NotDicomError(describeParseError(err));
  }
  if (opts.complete && runsPastEnd(ds)) throw new NotDicomError('truncated or malformed DICOM file');

  const cs = dataSetCharacterSet(ds);
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
    modality: firstCode(ascii(ds, 'x00080060')),
    patientName: personName(ds, 'x00100010', cs),
    patientId: text(ds, 'x00100020', cs),
    patientBirthDate: dicomDate(ascii(ds, 'x00100030')),
    patientSex: firstCode(ascii(ds, 'x00100040')),
    patientAge: firstCode(ascii(ds, 'x00101010')),
    studyDate: dicomDate(ascii(ds, 'x00080020')),
    studyTime: firstCode(ascii(ds, 'x00080030')),
    studyDescription: text(ds, 'x00081030', cs),
    accessionNumber: text(ds, 'x00080050', cs),
    institutionName: text(ds, 'x00080080', cs),
    bodyPart: firstCode(ascii(ds, 'x00180015')),
    seriesNumber: integer(ascii(ds, 'x00200011')),
    seriesDescription: text(ds, 'x0008103e', cs),
    instanceNumber: integer(ascii(ds, 'x00200013')),
  };
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
