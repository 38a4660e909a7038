import type { InstanceHeader } from '../../dicom-archive/dicom-header';
import { classifyEntry } from '../../dicom-archive/entry-classifier';
import type { ZipFileEntry } from '../../dicom-archive/zip-reader';
import type { IngestRun } from './ingest-run';
import type { EntryBytes } from './read.stage';

/** The skip reason a DICOMDIR is counted under (it is read, not imported). */
export const DICOMDIR_READ = 'DICOMDIR (media index, read)';

/**
 * Tells what each file is: a DICOM instance (its header), a DICOMDIR (whose references it keeps, so
 * the files it lists can be read without the DICM preamble) or something skipped, counted on the run.
 */
export class ClassifyStage {
  /** Files DICOMDIRs list (upper-cased paths) and the transfer syntax they give (null: none). */
  private readonly referenced = new Map<string, string | null>();

  constructor(
    private readonly run: IngestRun,
    /** Decoded image size an instance may declare (see pixel-budget.ts). */
    private readonly maxDecodedBytes?: number,
  ) {}

  /** The transfer syntax a DICOMDIR gives for the file (null when none), undefined when none lists it. */
  referenceOf(file: ZipFileEntry): string | null | undefined {
    return this.referenced.get(file.name.toUpperCase());
  }

  /** The file's instance header, or null when it is not an instance (already counted as skipped). */
  classify(
    file: ZipFileEntry,
    bytes: EntryBytes,
    referencedTs: string | null | undefined,
  ): InstanceHeader | null {
    const outcome =
      bytes.kind === 'prescanned'
        ? bytes.outcome
        : classifyEntry(bytes.data, bytes.complete, referencedTs, {
            fileSize: file.size,
            maxDecodedBytes: this.maxDecodedBytes,
          });
    if (outcome.kind === 'skip') {
      this.run.skip(outcome.reason, file.name);
      return null;
    }
    if (outcome.kind === 'dicomdir') {
      const base = file.name.includes('/') ? file.name.slice(0, file.name.lastIndexOf('/') + 1) : '';
      for (const f of outcome.files)
        this.referenced.set(`${base}${f.path.join('/')}`.toUpperCase(), f.transferSyntaxUid);
      this.run.skip(DICOMDIR_READ);
      return null;
    }
    return outcome.header;
  }
}
