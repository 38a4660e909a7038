import type { Logger } from 'pino';
import type yauzl from 'yauzl';
import type { UploadArea } from '../uploads';
import {
  filesOfListing,
  IngestError,
  listZipFiles,
  type ZipFileEntry,
  type ZipLimits,
} from '../../dicom-archive/zip-reader';
import type { OpenArchive } from './ingest-run';
import type { ArchiveListing } from './upload-scans';

/** The size of a finished upload; an IngestError when it is missing or did not finish. */
export async function finishedUploadSize(uploadArea: UploadArea, objectName: string): Promise<number> {
  const info = await uploadArea.info(objectName);
  if (!info || info.size === undefined || info.offset !== info.size) {
    throw new IngestError('The upload is missing or did not finish. Please upload the files again.');
  }
  return info.size;
}

/** Opens the uploaded ZIP (central directory and positional reads); an IngestError when it is not one. */
export async function openArchive(
  uploadArea: UploadArea,
  objectName: string,
  size: number,
  log: Logger,
): Promise<OpenArchive> {
  let zip: yauzl.ZipFile;
  try {
    zip = await uploadArea.openZip(objectName, size);
  } catch (err) {
    log.info({ err: (err as Error).message }, 'not a readable zip');
    throw new IngestError(
      'The file is not a complete ZIP archive (it may be truncated or damaged). Please upload it again.',
    );
  }
  try {
    return { zip, ranges: await uploadArea.openRanges(objectName), size };
  } catch (err) {
    zip.close();
    throw err;
  }
}

/** Closes what openArchive opened. */
export async function closeArchive(archive: OpenArchive): Promise<void> {
  archive.zip.close();
  await archive.ranges.close().catch(() => undefined);
}

export interface Listing {
  /** The files to read, DICOMDIRs first. */
  files: ZipFileEntry[];
  /** The entries left out of `files`, and why. */
  skipped: Array<{ name: string; reason: string }>;
  /** Milliseconds the central directory took. */
  ms: number;
}

const isDicomDir = (f: ZipFileEntry) => /(^|\/)DICOMDIR$/i.test(f.name);

/**
 * Lists the archive's files (the central directory's checks fail the whole archive, see
 * zip-reader.ts), DICOMDIRs first, so files they reference are known before those files are read.
 */
export async function listStage(
  zip: yauzl.ZipFile,
  limits: ZipLimits,
  prelisted?: ArchiveListing,
): Promise<Listing> {
  const started = Date.now();
  const listed = madeEarlier(prelisted, zip, limits) ?? (await listZipFiles(zip, limits));
  return {
    files: [...listed.files.filter(isDicomDir), ...listed.files.filter((f) => !isDicomDir(f))],
    skipped: listed.skipped,
    ms: Date.now() - started,
  };
}

/**
 * The listing the prescan made when the upload finished (archive-prescan.ts), when it was made of
 * this archive (same size) under these limits: the same listZipFiles on the same bytes, so it fails
 * the archive for the same reason.
 */
function madeEarlier(made: ArchiveListing | undefined, zip: yauzl.ZipFile, limits: ZipLimits) {
  if (!made || made.size !== zip.fileSize || !sameLimits(made.limits, limits)) return undefined;
  if ('refused' in made) throw new IngestError(made.refused);
  return { files: filesOfListing(made.listing), skipped: made.listing.skipped };
}

const sameLimits = (a: ZipLimits, b: ZipLimits) =>
  (Object.keys(b) as Array<keyof ZipLimits>).every((k) => a[k] === b[k]) &&
  Object.keys(a).length === Object.keys(b).length;
