import type { EntryOutcome } from '../../dicom-archive/entry-classifier';
import { crcOf, readEntryPrefix, readStoredEntry, type ZipFileEntry } from '../../dicom-archive/zip-reader';
import type { ScannedEntry } from '../../dicom-archive/zip-stream-scanner';
import type { OpenArchive } from './ingest-run';

/** Files up to this size are read into memory once; larger ones are read twice (header prefix, then copy). */
const IN_MEMORY_MAX = 64 * 1024 * 1024;
/** Prefix of a large file read to find its header. */
const HEADER_PREFIX = 16 * 1024 * 1024;
/** Stored entries read ahead of the one being parsed. */
const READ_AHEAD_COUNT = 16;
const READ_AHEAD_BYTES = 32 * 1024 * 1024;

/** A stored (uncompressed) entry small enough to be read whole with one positional read. */
export const isStored = (f: ZipFileEntry): boolean =>
  f.entry.compressionMethod === 0 && f.size <= IN_MEMORY_MAX;

/** What the read stage hands on for one file. */
export type EntryBytes =
  /** Read and classified while the upload arrived: the bytes are not read again. */
  | { kind: 'prescanned'; outcome: EntryOutcome; dataOffset: number }
  /** Its bytes: all of them (`complete`), or a header prefix of a large file. */
  | { kind: 'read'; data: Buffer; complete: boolean; dataOffset: number | null };

/**
 * Reads the files of one archive, in the listing's order. Stored entries are read a few ahead of the
 * one being parsed: each read waits on the disk (or on S3), and waiting for several at once instead
 * of one after the other keeps the loop busy. Entries the prescan already read (see
 * archive-prescan.ts) are taken from it when the central directory agrees on their offset, size and
 * CRC-32. A damaged entry fails its own read with EntryReadError.
 */
export class ReadStage {
  private readonly ahead = new Map<number, Promise<{ data: Buffer; dataOffset: number }>>();
  private aheadBytes = 0;
  private nextAhead = 0;

  constructor(
    private readonly archive: OpenArchive,
    private readonly files: readonly ZipFileEntry[],
    /** What the prescan learned of this archive, by local header offset (only when it is kept whole). */
    private readonly prescanned?: Map<number, ScannedEntry>,
  ) {}

  /** The prescan's result for a file, when it matches the central directory. */
  prescanFor(f: ZipFileEntry): ScannedEntry | undefined {
    const pre = this.prescanned?.get(f.entry.relativeOffsetOfLocalHeader);
    return pre && pre.size === f.size && pre.crc === f.entry.crc32 >>> 0 ? pre : undefined;
  }

  /**
   * Reads file `index` of the listing. `usePrescan` is false for files a DICOMDIR lists (it may
   * change how they are read).
   */
  async read(index: number, usePrescan: boolean): Promise<EntryBytes> {
    const file = this.files[index]!;
    const pre = usePrescan ? this.prescanFor(file) : undefined;
    if (pre) return { kind: 'prescanned', outcome: pre.outcome, dataOffset: pre.dataOffset };
    if (isStored(file)) {
      this.readAhead(index);
      const read = this.ahead.get(index) ?? readStoredEntry(this.archive.ranges, file.entry);
      if (this.ahead.delete(index)) this.aheadBytes -= file.size;
      const { data, dataOffset } = await read;
      this.readAhead(index + 1);
      return { kind: 'read', data, complete: true, dataOffset };
    }
    const { data, complete } = await readEntryPrefix(
      this.archive.zip,
      file.entry,
      file.size <= IN_MEMORY_MAX ? file.size + 1 : HEADER_PREFIX,
    );
    return { kind: 'read', data, complete, dataOffset: null };
  }

  /** Waits for every read started ahead (whatever their outcome), so none is left pending. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.ahead.values());
  }

  private readAhead(from: number): void {
    this.nextAhead = Math.max(this.nextAhead, from);
    while (
      this.nextAhead < this.files.length &&
      this.ahead.size < READ_AHEAD_COUNT &&
      this.aheadBytes < READ_AHEAD_BYTES
    ) {
      const f = this.files[this.nextAhead]!;
      if (isStored(f) && !this.prescanFor(f)) {
        const read = readStoredEntry(this.archive.ranges, f.entry);
        // Failures surface when the entry's turn comes; until then they are not unhandled.
        read.catch(() => undefined);
        this.ahead.set(this.nextAhead, read);
        this.aheadBytes += f.size;
      }
      this.nextAhead++;
    }
  }
}

/**
 * The CRC-32 of a file's bytes, or null when they do not match the central directory (a damaged
 * entry). Whole files are checked here; stored ones were checked as they were read or prescanned,
 * and large ones are checked while they are copied (see store.stage.ts).
 */
export function verifiedCrc(file: ZipFileEntry, bytes: EntryBytes): number | null {
  const expected = file.entry.crc32 >>> 0;
  if (bytes.kind === 'prescanned') return expected;
  const crc = bytes.complete && bytes.dataOffset === null ? crcOf(bytes.data) : expected;
  return bytes.complete && crc !== expected ? null : crc;
}
