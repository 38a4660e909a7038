import { open } from 'node:fs/promises';
import type { Logger } from 'pino';
import { readInto } from '../uploads/upload-area';
import { classifyEntry, type EntryOutcome } from './entry-classifier';
import { crcOf } from './zip-reader';

/** What the prescan learned of one stored entry, keyed by the offset of its local header. */
export interface ScannedEntry {
  size: number;
  crc: number;
  /** Where the entry's bytes start in the archive. */
  dataOffset: number;
  outcome: EntryOutcome;
}

interface ScanState {
  path: string;
  /** Offset of the next local header to read. */
  next: number;
  /** Bytes known to have arrived. */
  available: number;
  /** Where the last pass stopped reading (the file's length then, at most `available`). */
  scannedTo: number;
  entries: Map<number, ScannedEntry>;
  running: Promise<void> | null;
  /** Stopped: an entry it cannot follow (data descriptor, ZIP64, not a ZIP); the job reads the rest. */
  stopped: boolean;
  touched: number;
}

/** Entries larger than this are left to the job (their bytes would sit in memory while hashed). */
const MAX_ENTRY = 64 * 1024 * 1024;
/** Uploads followed at once; beyond it the least recently touched is dropped (the job then reads it). */
const MAX_UPLOADS = 256;
/** Results nobody took within this long are dropped. */
const STALE_AFTER_MS = 60 * 60 * 1000;
const LOCAL_HEADER = 0x04034b50;
/** Bytes read at once while scanning. */
const WINDOW = 8 * 1024 * 1024;
/** Window buffers kept for later passes (8 MiB each). */
const SPARE_WINDOWS = 4;

/**
 * Reads a stored-mode ZIP while tus is still receiving it: each entry is checked against its CRC and
 * classified (DICOM header parsed) as soon as its last byte has arrived, so when the upload ends the
 * process-study job finds the work done and only indexes. Results are a cache: they live in this
 * process only, are dropped when the upload is terminated or created again, and the job uses an entry
 * only when the central directory agrees on its offset, size and CRC-32; anything missing it reads
 * itself.
 */
export class ArchivePrescan {
  private readonly states = new Map<string, ScanState>();
  /**
   * Read buffers are reused from pass to pass: fresh memory costs a page fault per 4 KiB when first
   * touched (and, on virtual machines that hand freed memory back to the host, every time), which
   * with a new 8 MiB window per read cost about as much as writing the upload itself.
   */
  private readonly spareWindows: Buffer[] = [];

  constructor(private readonly log: Logger) {}

  /** Bytes up to `offset` of upload `id`, a file at `path`, have arrived. */
  advance(id: string, path: string, offset: number): void {
    let state = this.states.get(id);
    if (!state || state.path !== path) {
      state = {
        path,
        next: 0,
        available: 0,
        scannedTo: 0,
        entries: new Map(),
        running: null,
        stopped: false,
        touched: Date.now(),
      };
      this.states.set(id, state);
      this.evict();
    }
    state.available = Math.max(state.available, offset);
    state.touched = Date.now();
    if (!state.running && !state.stopped) state.running = this.run(id, state);
  }

  /** Waits for the scan of `id` to reach `size` (the whole upload), then hands its results over (once). */
  async take(id: string, size: number): Promise<Map<number, ScannedEntry> | undefined> {
    const state = this.states.get(id);
    if (!state) return undefined;
    this.advance(id, state.path, size);
    while (state.running) await state.running;
    this.states.delete(id);
    return state.entries;
  }

  /** Whether a pass over `id` is under way (it stops when it reaches bytes that have not arrived). */
  scanning(id: string): boolean {
    return Boolean(this.states.get(id)?.running);
  }

  forget(id: string): void {
    const state = this.states.get(id);
    if (state) state.stopped = true;
    this.states.delete(id);
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

  private async run(id: string, state: ScanState): Promise<void> {
    // What this pass may read: bytes tus has received and that are also in the file (tus reports
    // bytes as they pass through, a write buffer ahead of the disk). Only bytes beyond it are a
    // reason for another pass.
    let passEnd = state.available;
    const previousEnd = state.scannedTo;
    const pooled = this.spareWindows.pop() ?? Buffer.allocUnsafe(WINDOW);
    let buffer = pooled;
    try {
      const fh = await open(state.path, 'r');
      passEnd = Math.min(passEnd, (await fh.stat()).size);
      state.scannedTo = passEnd;
      // Entries are read through a window of up to WINDOW bytes, so small files cost no read each.
      // A read overwrites the window, so what bytesAt returned is used before the next call.
      let window: Buffer = Buffer.alloc(0);
      let windowStart = 0;
      const bytesAt = async (pos: number, length: number): Promise<Buffer> => {
        if (pos >= windowStart && pos + length <= windowStart + window.length)
          return window.subarray(pos - windowStart, pos - windowStart + length);
        const want = Math.max(length, Math.min(WINDOW, passEnd - pos));
        // An entry larger than the window gets a buffer of its own, not kept.
        if (buffer.length < want) buffer = Buffer.allocUnsafe(want);
        window = await readInto(fh, buffer, pos, want);
        windowStart = pos;
        return window.subarray(0, Math.min(length, window.length));
      };
      try {
        for (;;) {
          if (state.stopped || state.next + 30 > passEnd) break;
          const header = await bytesAt(state.next, 30);
          if (header.length < 30 || header.readUInt32LE(0) !== LOCAL_HEADER) {
            // The central directory (or something we do not follow): nothing more to scan.
            state.stopped = true;
            break;
          }
          const flags = header.readUInt16LE(6);
          const method = header.readUInt16LE(8);
          const crc = header.readUInt32LE(14);
          const compressed = header.readUInt32LE(18);
          const size = header.readUInt32LE(22);
          const dataOffset = state.next + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
          if (flags & 0x0008 || flags & 0x0001 || compressed === 0xffffffff || size === 0xffffffff) {
            state.stopped = true;
            break;
          }
          const end = dataOffset + compressed;
          if (end > passEnd) break;
          if (method === 0 && compressed === size && size <= MAX_ENTRY) {
            const data = await bytesAt(dataOffset, size);
            if (data.length === size && crcOf(data) === crc) {
              state.entries.set(state.next, {
                size,
                crc,
                dataOffset,
                outcome: classifyEntry(data, true, undefined),
              });
            }
          }
          state.next = end;
        }
        // Flushed as it arrives, so keeping the archive whole has little left to sync at the end.
        await fh.datasync();
      } finally {
        await fh.close();
      }
    } catch (err) {
      // A cache: on any trouble the job reads the archive itself.
      state.stopped = true;
      this.log.debug({ err, uploadId: id }, 'upload prescan stopped');
    } finally {
      state.running = null;
      if (this.spareWindows.length < SPARE_WINDOWS) this.spareWindows.push(pooled);
    }
    // Bytes that arrived while this pass ran. Without new bytes another pass would find the same
    // incomplete entry and spin (open, read, sync) until the next chunk lands; so also when the file
    // did not grow since the last pass (its writes lag behind), the next progress event starts one.
    if (
      !state.stopped &&
      state.available > passEnd &&
      passEnd > previousEnd &&
      state.next + 30 <= state.available &&
      this.states.get(id) === state
    )
      state.running = this.run(id, state);
  }
}
