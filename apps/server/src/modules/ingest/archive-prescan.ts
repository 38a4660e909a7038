import { open } from 'node:fs/promises';
import type { Logger } from 'pino';
import { readInto, type UploadWriteObserver } from '../uploads';
import {
  ZipStreamScanner,
  type EntryMemory,
  type ScannedEntry,
} from '../../dicom-archive/zip-stream-scanner';

interface ScanState {
  path: string;
  scanner: ZipStreamScanner;
  touched: number;
}

/** Entries larger than this are left to the job (their bytes would sit in memory until their end). */
const MAX_ENTRY = 64 * 1024 * 1024;
/** Bytes of entries under way, for all uploads together; an entry that does not fit is left to the job. */
const MAX_HELD = 512 * 1024 * 1024;
/** Uploads followed at once; beyond it the least recently touched is dropped (the job then reads it). */
const MAX_UPLOADS = 256;
/** Results nobody took within this long are dropped. */
const STALE_AFTER_MS = 60 * 60 * 1000;
/** Most bytes read back from the file when an upload resumes at an offset the scan is not at. */
const MAX_REPLAY = MAX_ENTRY + 16 * 1024 * 1024;
const REPLAY_WINDOW = 1024 * 1024;

/**
 * Reads a stored-mode ZIP while tus writes it: the upload area shows each chunk to the scan on its
 * way to the file, where its entry's CRC-32 is computed and, once its last byte has passed, the entry
 * is classified (DICOM header parsed). When the upload ends the process-study job finds the work done
 * and only indexes, and nothing was read back from the disk. Results are a cache: they live in this
 * process only, are dropped when the upload is terminated or created again, and the job uses an entry
 * only when the central directory agrees on its offset, size and CRC-32; anything missing it reads
 * itself.
 */
export class ArchivePrescan implements UploadWriteObserver {
  private readonly states = new Map<string, ScanState>();
  private held = 0;
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
    private readonly log: Logger,
    /** Decoded image size an instance may declare (see pixel-budget.ts). */
    private readonly maxDecodedBytes?: number,
  ) {}

  async beginWrite(id: string, path: string, offset: number): Promise<((chunk: Buffer) => void) | undefined> {
    let state = this.states.get(id);
    if (!state || state.path !== path) {
      if (state) this.forget(id);
      state = {
        path,
        scanner: new ZipStreamScanner(this.memory, {
          maxEntry: MAX_ENTRY,
          maxDecodedBytes: this.maxDecodedBytes,
        }),
        touched: Date.now(),
      };
      this.states.set(id, state);
      this.evict();
    }
    state.touched = Date.now();
    const { scanner } = state;
    if (scanner.position !== offset) {
      // A resumed upload: the bytes from the entry under way to the offset come from the file.
      const from = offset < scanner.position ? scanner.rewind(offset) : scanner.position;
      if (offset - from > MAX_REPLAY || !(await this.replay(id, state, from, offset))) {
        this.forget(id);
        return undefined;
      }
    }
    return (chunk) => scanner.push(chunk);
  }

  /** Hands the results for `id` over (once); the upload has ended, so every byte has passed the scan. */
  take(id: string): Map<number, ScannedEntry> | undefined {
    const state = this.states.get(id);
    if (!state) return undefined;
    this.forget(id);
    return state.scanner.entries;
  }

  forget(id: string): void {
    this.states.get(id)?.scanner.release();
    this.states.delete(id);
  }

  /** Bytes of entries under way, held for all uploads (for tests). */
  get heldBytes(): number {
    return this.held;
  }

  /** Pushes bytes `from`..`to` of the upload's file into its scan; false when they cannot be read. */
  private async replay(id: string, state: ScanState, from: number, to: number): Promise<boolean> {
    try {
      const fh = await open(state.path, 'r');
      try {
        for (let at = from; at < to;) {
          const length = Math.min(REPLAY_WINDOW, to - at);
          const chunk = await readInto(fh, Buffer.allocUnsafe(length), at, length);
          if (chunk.length === 0) return false;
          state.scanner.push(chunk);
          at += chunk.length;
        }
      } finally {
        await fh.close();
      }
      return this.states.get(id) === state;
    } catch (err) {
      // A cache: on any trouble the job reads the archive itself.
      this.log.debug({ err, uploadId: id }, 'upload prescan could not catch up');
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
