import yauzl from 'yauzl';

const END_OF_DIRECTORY = 0x06054b50;
const END_OF_DIRECTORY_LENGTH = 22;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_LOCATOR_LENGTH = 20;
const DIRECTORY_RECORD = 0x02014b50;
const RECORD_LENGTH = 46;

/**
 * The central directory of a plain ZIP, read at once from its bytes: the same entries yauzl gives
 * (`lazyEntries`, `decodeStrings: false`, `validateEntrySizes`; see cached-zip.ts), made without one
 * asynchronous read per record, which made listing 5,000 entries take a tenth of a second.
 *
 * Only the plain case is read here: no archive comment, no ZIP64 record or field, one disk, and
 * every record whole and consistent. For anything else it returns null and the caller lists the
 * archive with yauzl, which reads the rest of the format and words its errors. `read(start, length)`
 * returns up to `length` bytes of the archive from `start`.
 */
export function readPlainCentralDirectory(
  read: (start: number, length: number) => Buffer,
  size: number,
): { entryCount: number; entries: yauzl.Entry[] } | null {
  if (size < END_OF_DIRECTORY_LENGTH) return null;
  const endStart = size - END_OF_DIRECTORY_LENGTH;
  const end = read(endStart, END_OF_DIRECTORY_LENGTH);
  // Found here only with no comment after it (yauzl searches back through one).
  if (end.length < END_OF_DIRECTORY_LENGTH || end.readUInt32LE(0) !== END_OF_DIRECTORY) return null;
  if (end.readUInt16LE(20) !== 0 || end.readUInt16LE(4) !== 0) return null;
  if (endStart >= ZIP64_LOCATOR_LENGTH) {
    const locator = read(endStart - ZIP64_LOCATOR_LENGTH, 4);
    if (locator.length === 4 && locator.readUInt32LE(0) === ZIP64_LOCATOR) return null;
  }
  const entryCount = end.readUInt16LE(10);
  const directoryStart = end.readUInt32LE(16);
  if (directoryStart > endStart) return null;
  const directory = read(directoryStart, endStart - directoryStart);
  const entries: yauzl.Entry[] = [];
  let at = 0;
  for (let i = 0; i < entryCount; i++) {
    const entry = readRecord(directory, at);
    if (!entry) return null;
    entries.push(entry);
    at += RECORD_LENGTH + entry.fileNameLength + entry.extraFieldLength + entry.fileCommentLength;
  }
  return { entryCount, entries };
}

/** One central directory record at `at`, as yauzl makes its Entry; null when it is not plain. */
function readRecord(directory: Buffer, at: number): yauzl.Entry | null {
  if (at + RECORD_LENGTH > directory.length || directory.readUInt32LE(at) !== DIRECTORY_RECORD) return null;
  const entry = Object.create(yauzl.Entry.prototype) as yauzl.Entry & Record<string, unknown>;
  entry.versionMadeBy = directory.readUInt16LE(at + 4);
  entry.versionNeededToExtract = directory.readUInt16LE(at + 6);
  entry.generalPurposeBitFlag = directory.readUInt16LE(at + 8);
  entry.compressionMethod = directory.readUInt16LE(at + 10);
  entry.lastModFileTime = directory.readUInt16LE(at + 12);
  entry.lastModFileDate = directory.readUInt16LE(at + 14);
  entry.crc32 = directory.readUInt32LE(at + 16);
  entry.compressedSize = directory.readUInt32LE(at + 20);
  entry.uncompressedSize = directory.readUInt32LE(at + 24);
  entry.fileNameLength = directory.readUInt16LE(at + 28);
  entry.extraFieldLength = directory.readUInt16LE(at + 30);
  entry.fileCommentLength = directory.readUInt16LE(at + 32);
  entry.internalFileAttributes = directory.readUInt16LE(at + 36);
  entry.externalFileAttributes = directory.readUInt32LE(at + 38);
  entry.relativeOffsetOfLocalHeader = directory.readUInt32LE(at + 42);
  // Strong encryption (an error in yauzl) and ZIP64 values are left to yauzl.
  if (entry.generalPurposeBitFlag & 0x40) return null;
  if (
    entry.compressedSize === 0xffffffff ||
    entry.uncompressedSize === 0xffffffff ||
    entry.relativeOffsetOfLocalHeader === 0xffffffff
  )
    return null;
  const nameStart = at + RECORD_LENGTH;
  const extraStart = nameStart + entry.fileNameLength;
  const commentStart = extraStart + entry.extraFieldLength;
  const recordEnd = commentStart + entry.fileCommentLength;
  if (recordEnd > directory.length) return null;
  const extraFields = plainExtraFields(directory.subarray(extraStart, commentStart));
  if (!extraFields) return null;
  // yauzl refuses a stored entry whose two sizes differ (encrypted ones carry a 12-byte header).
  if (
    entry.compressionMethod === 0 &&
    entry.compressedSize !== entry.uncompressedSize + (entry.generalPurposeBitFlag & 0x1 ? 12 : 0)
  )
    return null;
  // Views of the directory's bytes (yauzl's are views of one buffer per record): no copies to
  // make and collect, 5,000 times over.
  entry.fileNameRaw = directory.subarray(nameStart, extraStart);
  entry.extraFieldRaw = directory.subarray(extraStart, commentStart);
  entry.fileCommentRaw = directory.subarray(commentStart, recordEnd);
  entry.extraFields = extraFields;
  entry.fileName = entry.fileNameRaw as unknown as string;
  entry.fileComment = entry.fileCommentRaw as unknown as string;
  entry.comment = entry.fileComment;
  return entry;
}

/** The extra fields as yauzl splits them; null when one overruns the record (an error in yauzl). */
function plainExtraFields(extra: Buffer): Array<{ id: number; data: Buffer }> | null {
  const fields: Array<{ id: number; data: Buffer }> = [];
  let i = 0;
  while (i < extra.length - 3) {
    const id = extra.readUInt16LE(i);
    const dataEnd = i + 4 + extra.readUInt16LE(i + 2);
    if (dataEnd > extra.length) return null;
    // A ZIP64 field only matters with 0xffffffff values, refused above; yauzl reads it then.
    fields.push({ id, data: extra.subarray(i + 4, dataEnd) });
    i = dataEnd;
  }
  return fields;
}
