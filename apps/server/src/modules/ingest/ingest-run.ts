import type { Logger } from 'pino';
import type yauzl from 'yauzl';
import type { InstanceHeader } from '../../dicom-archive/dicom-header';
import type { Quota } from '../accounts';
import type { IndexedInstance, UploadRow } from '../studies';
import type { ZipFileEntry } from '../../dicom-archive/zip-reader';
import type { RangeReader } from '../uploads';

/** How many skipped files are named per reason (the rest are counted). */
const SKIPPED_NAMES_KEPT = 3;
const SHOWN_NAME_CHARS = 60;

/**
 * A ZIP entry's name as a notification can show it: no control or format characters (which could
 * reorder the text around it), and the end of a long path, cut between characters.
 */
function shownName(name: string): string {
  const chars = Array.from(name.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '?'));
  return chars.length > SHOWN_NAME_CHARS
    ? `…${chars.slice(-(SHOWN_NAME_CHARS - 1)).join('')}`
    : chars.join('');
}

/** What processing an upload found, kept on the upload and shown in its notification. */
export interface Summary {
  files: number;
  /** Files whose reading was done while the upload arrived. */
  prescanned: number;
  instances: number;
  unchanged: number;
  skipped: number;
  skipReasons: Record<string, number>;
  /** The first few files skipped for each reason, as named in the ZIP, so the user can find them. */
  skippedNames?: Record<string, string[]>;
  /** Milliseconds spent in each stage (list, unzipParse, store, index, total). */
  stages: Record<string, number>;
}

/** The uploaded archive, open for one run. */
export interface OpenArchive {
  zip: yauzl.ZipFile;
  /** Positional reads of the archive (stored entries are read with one each). */
  ranges: RangeReader;
  size: number;
}

/** How the run stores new instances (see store.stage.ts). */
export interface StoragePlan {
  /** The archive may become the instances' storage as it is (decided for good once all are read). */
  keepWhole: boolean;
  /** The archive's path on this machine's disk, when it is there and storage can adopt files. */
  localArchive: string | undefined;
}

/** One instance read, checked and waiting to be stored. */
export interface PendingInstance {
  header: InstanceHeader;
  crc: number;
  size: number;
  /** Its bytes, when they were read whole; null for large files (copied from the archive when stored). */
  data: Buffer | null;
  file: ZipFileEntry;
  /** Where the entry's bytes start in the archive (stored entries). */
  dataOffset: number | null;
}

/**
 * The state of one processing run of one upload, shared by the stages: what they read from
 * (archive, quota, plan) and what they add to (summary, instances to index, bytes charged).
 */
export class IngestRun {
  readonly summary: Summary = {
    files: 0,
    prescanned: 0,
    instances: 0,
    unchanged: 0,
    skipped: 0,
    skipReasons: {},
    stages: { list: 0, unzipParse: 0, store: 0, index: 0 },
  };
  /** Everything the index stage will record: new instances and unchanged ones. */
  readonly items: IndexedInstance[] = [];
  /** New instances waiting for the decision to keep the archive whole or copy them out. */
  readonly toKeep: PendingInstance[] = [];
  /** Bytes this upload adds to the owner's storage so far (negative when files shrink). */
  addedBytes = 0;

  constructor(
    readonly upload: UploadRow,
    readonly log: Logger,
    readonly archive: OpenArchive,
    /** The owner's quota as the run began. */
    readonly quota: Quota,
    readonly plan: StoragePlan,
    /** When processing began (before the archive was opened). */
    readonly startedAt = Date.now(),
  ) {}

  /** Counts a file that brings no instance, by reason, and keeps its name among the first few. */
  skip(reason: string, name?: string): void {
    this.summary.skipped++;
    this.summary.skipReasons[reason] = (this.summary.skipReasons[reason] ?? 0) + 1;
    if (name === undefined) return;
    const names = ((this.summary.skippedNames ??= {})[reason] ??= []);
    if (names.length < SKIPPED_NAMES_KEPT) names.push(shownName(name));
  }

  /** Adds the time since `since` to a stage's total. */
  timed(stage: string, since: number): void {
    this.summary.stages[stage] = (this.summary.stages[stage] ?? 0) + Date.now() - since;
  }
}
