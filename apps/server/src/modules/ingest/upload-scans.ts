import { closeSync, openSync, readSync } from 'node:fs';
import type yauzl from 'yauzl';
import { openCachedZipFile } from '../../dicom-archive/cached-zip';
import {
  IngestError,
  listPlainZip,
  listZipFiles,
  portableListing,
  type PortableListing,
  type ZipLimits,
  type ZipListing,
} from '../../dicom-archive/zip-reader';
import {
  ZipStreamScanner,
  type EntryMemory,
  type ScannedEntry,
} from '../../dicom-archive/zip-stream-scanner';

interface ScanState {
  path: string;
  /** The upload's file, open for reading while it is followed. */
  fd?: number;
  scanner: ZipStreamScanner;
  touched: number;
  /** Entries found since `drainFound` was last called. */
  found: Array<[number, ScannedEntry]>;
  /** The archive's listing, started once the upload's last byte passed (see `finished`). */
  listing?: Promise<ArchiveListing | null>;
}

/**
 * The central directory of a finished upload, listed where its bytes were scanned while the client
 * asks for processing: the listing, or why the archive is refused, with the limits it was checked
 * against and the archive size it was read at.
 */
export type ArchiveListing = { size: number; limits: ZipLimits } & (
  { listing: PortableListing } | { refused: string }
);

/** Entries larger than this are left to the job (their bytes would sit in memory until their end). */
const MAX_ENTRY = 64 * 1024 * 1024;
/** Bytes of entries under way, for all uploads together; an entry that does not fit is left to the job. */
const MAX_HELD = 512 * 1024 * 1024;
/** Uploads followed at once; beyond it the least recently touched is dropped (the job then reads it). */
const MAX_UPLOADS = 256;
/** Results nobody took within this long are dropped. */
const STALE_AFTER_MS = 60 * 60 * 1000;
/** Most bytes read at once from the file before a write, when an upload resumes at an offset the scan is not at. */
const MAX_REPLAY = MAX_ENTRY + 16 * 1024 * 1024;
const REPLAY_WINDOW = 1024 * 1024;

/**
 * The scans of the uploads under way, one ZipStreamScanner each (see archive-prescan.ts, which runs
 * this in a worker thread). Synchronous throughout, file reads included: in its worker nothing else
 * waits on it, and the bytes of one upload must be scanned in the order they came. Only the listing
 * of a finished upload's archive runs asynchronously, beside the scans of the others.
 */
export class UploadScans {
  private readonly states = new Map<string, ScanState>();
  private held = 0;
  /** Where bytes read from the files pass through. */
  private window: Buffer | undefined;
  private readonly memory: EntryMemory = {
    take: (bytes) => {
      if (this.held + bytes > MAX_HELD) return false;
      this.held += bytes;
      return true;
    },
    give: (bytes) => {
      this.held -= bytes;
    },
  };

  constructor(
    /** Decoded image size an instance may declare (see pixel-budget.ts). */
    private readonly maxDecodedBytes?: number,
    /** Called when an upload's scan is dropped (it no longer follows that upload), except by `take`. */
    private readonly onDrop?: (id: string) => void,
  ) {}

  /**
   * A write of upload `id` (its file at `path`) starts at `offset`. False when the scan cannot follow
   * it (the bytes before `offset` cannot be read back): the upload is then left to the job.
   */
  begin(id: string, path: string, offset: number): boolean {
    let state = this.states.get(id);
    if (!state || state.path !== path) {
      if (state) this.forget(id);
      const found: Array<[number, ScannedEntry]> = [];
      state = {
        path,
        scanner: new ZipStreamScanner(this.memory, {
          maxEntry: MAX_ENTRY,
          maxDecodedBytes: this.maxDecodedBytes,
          onEntry: (offset, entry) => found.push([offset, entry]),
        }),
        touched: Date.now(),
        found,
      };
      this.states.set(id, state);
      this.evict();
    }
    state.touched = Date.now();
    const { scanner } = state;
    if (scanner.position !== offset) {
      // A resumed upload: the bytes from the entry under way to the offset come from the file.
      const from = offset < scanner.position ? scanner.rewind(offset) : scanner.position;
      if (offset - from > MAX_REPLAY || !this.replay(state, from, offset)) {
        this.forget(id);
        return false;
      }
    }
    return true;
  }

  /**
   * The upload's file holds its bytes up to `to`: the scan reads what it has not seen from there. An
   * upload it cannot read is dropped (the job reads it); one it no longer follows is ignored.
   */
  readTo(id: string, to: number): void {
    const state = this.states.get(id);
    if (!state) return;
    state.touched = Date.now();
    if (state.scanner.position < to && !this.replay(state, state.scanner.position, to)) this.forget(id);
  }

  /**
   * The entries found in `id` since the last call, in the order found (an entry found again after a
   * rewind comes again). What `take` hands over is a subset of everything drained, by offset.
   */
  drainFound(id: string): Array<[number, ScannedEntry]> {
    const state = this.states.get(id);
    if (!state || state.found.length === 0) return [];
    return state.found.splice(0);
  }

  /**
   * Upload `id` has all its `size` bytes: when every one of them passed this scan, its archive is
   * listed now (asynchronously; the scans go on meanwhile), checked against `limits`.
   */
  finished(id: string, size: number, limits: ZipLimits): void {
    const state = this.states.get(id);
    if (!state || state.scanner.position !== size || state.listing) return;
    state.listing = listArchive(state.path, size, limits);
  }

  /** The listing `finished` started for `id`, if any; ask before `take`. */
  listingOf(id: string): Promise<ArchiveListing | null> | undefined {
    return this.states.get(id)?.listing;
  }

  /** Hands the results for `id` over (once); the upload has ended, so every byte has passed the scan. */
  take(id: string): Map<number, ScannedEntry> | undefined {
    const state = this.states.get(id);
    if (!state) return undefined;
    this.drop(id);
    return state.scanner.entries;
  }

  forget(id: string): void {
    if (!this.states.has(id)) return;
    this.drop(id);
    this.onDrop?.(id);
  }

  private drop(id: string): void {
    const state = this.states.get(id);
    if (!state) return;
    state.scanner.release();
    if (state.fd !== undefined) closeSync(state.fd);
    this.states.delete(id);
  }

  /** Bytes of entries under way, held for all uploads. */
  get heldBytes(): number {
    return this.held;
  }

  /** Pushes bytes `from`..`to` of the upload's file into its scan; false when they cannot be read. */
  private replay(state: ScanState, from: number, to: number): boolean {
    try {
      state.fd ??= openSync(state.path, 'r');
      // One window for every read: the scanner copies what it keeps.
      this.window ??= Buffer.allocUnsafe(REPLAY_WINDOW);
      for (let at = from; at < to;) {
        const read = readSync(state.fd, this.window, 0, Math.min(this.window.length, to - at), at);
        if (read === 0) return false;
        state.scanner.push(this.window.subarray(0, read));
        at += read;
      }
      return true;
    } catch {
      // A cache: on any trouble the job reads the archive itself.
      return false;
    }
  }

  private evict(): void {
    // Uploads processed elsewhere (a separate worker) or never processed are not taken here.
    const stale = Date.now() - STALE_AFTER_MS;
    for (const [id, s] of this.states) if (s.touched < stale) this.forget(id);
    while (this.states.size > MAX_UPLOADS) {
      let oldest: string | undefined;
      let at = Infinity;
      for (const [id, s] of this.states) if (s.touched < at) [oldest, at] = [id, s.touched];
      this.forget(oldest!);
    }
  }
}

/** Lists an archive on disk; null when it cannot be opened or read (the job then lists it itself and says why). */
async function listArchive(path: string, size: number, limits: ZipLimits): Promise<ArchiveListing | null> {
  const listed = (listing: ZipListing): ArchiveListing => ({
    size,
    limits,
    listing: portableListing(listing),
  });
  const refusal = (err: unknown): ArchiveListing | null =>
    err instanceof IngestError ? { size, limits, refused: err.message } : null;
  // A plain archive's directory is read at once; anything else goes through yauzl.
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const plain = listPlainZip((start, length) => readRange(fd!, start, length), size, limits);
    if (plain) return listed(plain);
  } catch (err) {
    return refusal(err);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  let zip: yauzl.ZipFile;
  try {
    zip = await openCachedZipFile(path, size);
  } catch {
    return null;
  }
  try {
    return listed(await listZipFiles(zip, limits));
  } catch (err) {
    return refusal(err);
  } finally {
    zip.close();
  }
}

/** Up to `length` bytes of a file from `start`. */
function readRange(fd: number, start: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, bytes, filled, length - filled, start + filled);
    if (read === 0) break;
    filled += read;
  }
  return bytes.subarray(0, filled);
}
