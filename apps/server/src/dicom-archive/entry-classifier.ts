import { hasDicmPreamble } from '../dicom/data-set';
import { IMPLICIT_LITTLE_ENDIAN } from '../dicom/transfer-syntax';
import { NotDicomError, parseDicomHeader, type DicomDirHeader, type InstanceHeader } from './dicom-header';

/** What one file of an upload turned out to be. */
export type EntryOutcome =
  | { kind: 'instance'; header: InstanceHeader }
  | { kind: 'dicomdir'; files: DicomDirHeader['files'] }
  | { kind: 'skip'; reason: string };

const ARCHIVE_MAGIC: Array<[number, number[]]> = [
  [0, [0x50, 0x4b, 0x03, 0x04]],
  [0, [0x50, 0x4b, 0x05, 0x06]],
  [0, [0x1f, 0x8b]],
  [0, [0x42, 0x5a, 0x68]],
  [0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  [0, [0x52, 0x61, 0x72, 0x21]],
  [0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  [0, [0x28, 0xb5, 0x2f, 0xfd]],
  [257, [0x75, 0x73, 0x74, 0x61, 0x72]],
];

/**
 * Classifies a file from its bytes (all of them, or a prefix when `complete` is false). A file without
 * the DICM preamble is read as DICOM only when a DICOMDIR lists it (`referencedTs` is then that
 * record's transfer syntax, or null when the record names none).
 */
export function classifyEntry(
  data: Buffer,
  complete: boolean,
  referencedTs: string | null | undefined,
  opts: { fileSize?: number; maxDecodedBytes?: number } = {},
): EntryOutcome {
  if (!hasDicmPreamble(data) && referencedTs === undefined)
    return { kind: 'skip', reason: isArchive(data) ? 'nested archive (not opened)' : 'not a DICOM file' };
  try {
    const header = parseDicomHeader(data, {
      complete,
      ...opts,
      ...(referencedTs !== undefined ? { transferSyntaxUid: referencedTs ?? IMPLICIT_LITTLE_ENDIAN } : {}),
    });
    return header.kind === 'dicomdir'
      ? { kind: 'dicomdir', files: header.files }
      : { kind: 'instance', header };
  } catch (err) {
    if (!(err instanceof NotDicomError)) throw err;
    return { kind: 'skip', reason: err.message };
  }
}

function isArchive(data: Buffer): boolean {
  return ARCHIVE_MAGIC.some(
    ([at, sig]) => data.length >= at + sig.length && sig.every((b, i) => data[at + i] === b),
  );
}
