import { classifyEntry, type EntryOutcome } from './entry-classifier';
import { crcOf } from './zip-reader';

/** What the scan learned of one stored entry, keyed by the offset of its local header. */
export interface ScannedEntry {
  size: number;
  crc: number;
  /** Where the entry's bytes start in the archive. */
  dataOffset: number;
  outcome: EntryOutcome;
}

/** The budget shared by the scans of all uploads for the bytes of entries under way. */
export interface EntryMemory {
  /** Takes `bytes` from the budget; false (and nothing taken) when they do not fit. */
  take(bytes: number): boolean;
  give(bytes: number): void;
}

/**
 * An entry buffer up to this size is kept for the upload's next entries (a CT slice is 0.5 MiB); a
 * larger entry gets one of its own. It bounds what an upload that stopped arriving holds until its
 * scan is dropped.
 */
const KEPT_BUFFER = 1024 * 1024;

const LOCAL_HEADER = 0x04034b50;
const HEADER_LENGTH = 30;

type Phase =
  | { kind: 'header' }
  | { kind: 'skip'; remaining: number; then: Phase }
  | {
      kind: 'data';
      headerOffset: number;
      dataOffset: number;
      size: number;
      expectedCrc: number;
      remaining: number;
      /** Whether the bytes are kept and hashed (a stored entry that fitted the budget). */
      keep: boolean;
      crc: number;
      /** Where the bytes are gathered (when kept), and how many are there. */
      buffer: Buffer | null;
      filled: number;
    }
  | { kind: 'stopped' };

/**
 * Reads a stored-mode ZIP from its bytes as they pass by, in order (the upload being written): each
 * entry's CRC-32 is computed as its chunks go past and, once its last byte has passed, it is
 * classified (DICOM header parsed) from the bytes it gathered, so nothing is read back from the disk.
 * The bytes are copied out of the chunks rather than the chunks kept: a socket's chunks held until
 * their entry ends outlive the young generation and cost full collections to free.
 * Stops at the central directory or at anything it cannot follow without it (a data descriptor,
 * encryption, ZIP64 sizes); entries it did not read are left to the process-study job.
 *
 * `rewind` goes back to an earlier offset, for an upload resumed at fewer bytes than passed by here
 * (a write that failed part-way): entries that ended beyond it are forgotten, and the bytes from the
 * start of the entry under way there to the offset must be pushed again.
 */
export class ZipStreamScanner {
  /** Offset of the next byte `push` expects. */
  position = 0;
  readonly entries = new Map<number, ScannedEntry>();
  /** Offsets of every local header the scan started to read, in order. */
  private readonly starts: number[] = [];
  private phase: Phase = { kind: 'header' };
  /** The local header read so far (it may be split across chunks). */
  private readonly header = Buffer.alloc(HEADER_LENGTH);
  private headerFilled = 0;
  /** The buffer entries are gathered in, reused from entry to entry. */
  private entryBuffer: Buffer | null = null;
  /** Entries larger than this are left to the job. */
  private readonly maxEntry: number;
  private readonly maxDecodedBytes: number | undefined;
  private readonly onEntry: ((headerOffset: number, entry: ScannedEntry) => void) | undefined;

  constructor(
    private readonly memory: EntryMemory,
    opts: {
      maxEntry: number;
      maxDecodedBytes?: number;
      /** Called with each entry as it joins `entries`. */
      onEntry?: (headerOffset: number, entry: ScannedEntry) => void;
    },
  ) {
    this.maxEntry = opts.maxEntry;
    this.maxDecodedBytes = opts.maxDecodedBytes;
    this.onEntry = opts.onEntry;
  }

  get stopped(): boolean {
    return this.phase.kind === 'stopped';
  }

  /** The next bytes of the archive (at `position`). */
  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && this.phase.kind !== 'stopped') at += this.consume(chunk, at);
    this.position += chunk.length;
  }

  /**
   * Goes back to `offset` (at most `position`) and returns where the caller must push from again:
   * the start of the last local header at or before `offset` (the archive's start when there is none).
   */
  rewind(offset: number): number {
    if (offset > this.position) throw new RangeError('rewind beyond the bytes pushed');
    this.release();
    for (const [headerOffset, e] of this.entries)
      if (e.dataOffset + e.size > offset) this.entries.delete(headerOffset);
    while (this.starts.length > 0 && this.starts[this.starts.length - 1]! > offset) this.starts.pop();
    // The last header started at or before `offset` is read again; with none, the archive's start.
    const from = this.starts.pop() ?? 0;
    this.phase = { kind: 'header' };
    this.headerFilled = 0;
    this.position = from;
    return from;
  }

  /** Gives back the memory of the entry under way, which is then left to the job (the scan is dropped or goes back). */
  release(): void {
    // While the entry's name is skipped, its data phase waits behind (with its memory taken).
    const pending = this.phase.kind === 'skip' ? this.phase.then : this.phase;
    if (pending.kind === 'data' && pending.keep) {
      this.memory.give(pending.size);
      pending.keep = false;
      pending.buffer = null;
    }
    this.entryBuffer = null;
  }

  /** Reads from `chunk` at `at`; returns how many bytes were used. */
  private consume(chunk: Buffer, at: number): number {
    const phase = this.phase;
    const offset = this.position + at;
    switch (phase.kind) {
      case 'header': {
        if (this.headerFilled === 0) this.starts.push(offset);
        const n = Math.min(HEADER_LENGTH - this.headerFilled, chunk.length - at);
        chunk.copy(this.header, this.headerFilled, at, at + n);
        this.headerFilled += n;
        if (this.headerFilled === HEADER_LENGTH) this.startEntry(offset + n - HEADER_LENGTH);
        return n;
      }
      case 'skip': {
        const n = Math.min(phase.remaining, chunk.length - at);
        phase.remaining -= n;
        if (phase.remaining === 0) this.phase = phase.then;
        return n;
      }
      case 'data': {
        const n = Math.min(phase.remaining, chunk.length - at);
        if (phase.keep) {
          const part = chunk.subarray(at, at + n);
          phase.crc = crcOf(part, phase.crc);
          phase.filled += part.copy(phase.buffer!, phase.filled);
        }
        phase.remaining -= n;
        if (phase.remaining === 0) this.endEntry(phase);
        return n;
      }
      case 'stopped':
        return chunk.length - at;
    }
  }

  private startEntry(headerOffset: number): void {
    const h = this.header;
    this.headerFilled = 0;
    const flags = h.readUInt16LE(6);
    const method = h.readUInt16LE(8);
    const compressed = h.readUInt32LE(18);
    const size = h.readUInt32LE(22);
    if (
      h.readUInt32LE(0) !== LOCAL_HEADER ||
      flags & 0x0008 ||
      flags & 0x0001 ||
      compressed === 0xffffffff ||
      size === 0xffffffff
    ) {
      // The central directory, or an entry whose end cannot be known from its local header.
      this.phase = { kind: 'stopped' };
      return;
    }
    const dataOffset = headerOffset + HEADER_LENGTH + h.readUInt16LE(26) + h.readUInt16LE(28);
    const keep = method === 0 && compressed === size && size <= this.maxEntry && this.memory.take(size);
    // An empty entry ends as soon as this phase is reached (the next byte, or the next push).
    const data: Phase = {
      kind: 'data',
      headerOffset,
      dataOffset,
      size: compressed,
      expectedCrc: h.readUInt32LE(14),
      remaining: compressed,
      keep,
      crc: 0,
      buffer: keep ? this.bufferFor(compressed) : null,
      filled: 0,
    };
    const nameAndExtra = dataOffset - headerOffset - HEADER_LENGTH;
    this.phase = nameAndExtra > 0 ? { kind: 'skip', remaining: nameAndExtra, then: data } : data;
  }

  /** A buffer for an entry of `size` bytes: the upload's reused one, grown when needed up to KEPT_BUFFER. */
  private bufferFor(size: number): Buffer {
    if (size > KEPT_BUFFER) return Buffer.allocUnsafe(size);
    if (!this.entryBuffer || this.entryBuffer.length < size) this.entryBuffer = Buffer.allocUnsafe(size);
    return this.entryBuffer;
  }

  private endEntry(phase: Extract<Phase, { kind: 'data' }>): void {
    this.phase = { kind: 'header' };
    if (!phase.keep) return;
    const data = phase.buffer!.subarray(0, phase.size);
    phase.buffer = null;
    try {
      // A damaged entry is left to the job, which skips it with its reason.
      if (phase.crc >>> 0 !== phase.expectedCrc) return;
      let outcome: EntryOutcome;
      try {
        outcome = classifyEntry(data, true, undefined, { maxDecodedBytes: this.maxDecodedBytes });
      } catch {
        // Whatever the classifier could not handle here is left to the job, which reads it again.
        return;
      }
      const entry = { size: phase.size, crc: phase.expectedCrc, dataOffset: phase.dataOffset, outcome };
      this.entries.set(phase.headerOffset, entry);
      this.onEntry?.(phase.headerOffset, entry);
    } finally {
      this.memory.give(phase.size);
    }
  }
}
