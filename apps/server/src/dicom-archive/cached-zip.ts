import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';

/** How uploaded ZIPs are opened: lazy entries, file names left as bytes for our own checks. */
const ZIP_OPTIONS: yauzl.Options = {
  lazyEntries: true,
  autoClose: false,
  decodeStrings: false,
  validateEntrySizes: true,
  strictFileNames: false,
};

/** Where the bytes of a ZIP come from: positional reads, and streams for entry data. */
export interface ZipSource {
  size: number;
  readAt(start: number, length: number): Promise<Buffer>;
  streamRange(start: number, end: number): Readable;
  onClose?: () => Promise<void>;
}

/** Opens a ZIP whose small reads (central directory, local headers) come from a few cached blocks. */
export function openCachedZip(source: ZipSource): Promise<yauzl.ZipFile> {
  const reader = new BlockCachedReader(source.size, source.readAt, source.streamRange, source.onClose);
  return new Promise((resolve, reject) =>
    yauzl.fromRandomAccessReader(reader, reader.size, ZIP_OPTIONS, (err, zip) =>
      err ? reject(err) : resolve(zip),
    ),
  );
}

/** Opens a ZIP file of `size` bytes on local disk (see openCachedZip); closing the ZipFile closes the file. */
export async function openCachedZipFile(file: string, size: number): Promise<yauzl.ZipFile> {
  const fh = await open(file, 'r');
  try {
    return await openCachedZip({
      size,
      readAt: (start, length) => readFileRange(fh, start, length),
      // Entry data gets a descriptor of its own, so a stream cut short never reads a closed one.
      streamRange: (start, end) => createReadStream(file, { start, end: end - 1 }),
      onClose: () => fh.close(),
    });
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}

/** Up to `length` bytes of a file from `start` (fewer at its end). */
export function readFileRange(fh: FileHandle, start: number, length: number): Promise<Buffer> {
  return readInto(fh, Buffer.allocUnsafe(Math.max(0, length)), start, length);
}

/** Reads up to `length` bytes at `position` into the start of `buffer`; returns the part filled. */
async function readInto(fh: FileHandle, buffer: Buffer, position: number, length: number): Promise<Buffer> {
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await fh.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Reads at most this long are served from cached blocks; longer ones (entry data) go to the source. */
const SMALL_READ = 64 * 1024;
const BLOCK_SIZE = 1024 * 1024;
const CACHED_BLOCKS = 4;

/**
 * Random access for yauzl in which the small reads it makes (two per central directory record, one
 * per local header) come from a few cached 1 MiB blocks. Listing 5,000 entries then costs a handful
 * of reads (or ranged GETs on S3) instead of 10,000.
 */
class BlockCachedReader extends yauzl.RandomAccessReader {
  private readonly blocks = new Map<number, Promise<Buffer>>();

  constructor(
    readonly size: number,
    private readonly readAt: (start: number, length: number) => Promise<Buffer>,
    private readonly streamRange: (start: number, end: number) => Readable,
    private readonly onClose?: () => Promise<void>,
  ) {
    super();
  }

  private block(index: number): Promise<Buffer> {
    let block = this.blocks.get(index);
    if (!block) {
      const start = index * BLOCK_SIZE;
      block = this.readAt(start, Math.min(BLOCK_SIZE, this.size - start));
      block.catch(() => this.blocks.delete(index));
      this.blocks.set(index, block);
      // Map order is insertion order: drop the oldest block.
      if (this.blocks.size > CACHED_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    }
    return block;
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead?: number) => void,
  ): void {
    if (length > SMALL_READ) return super.read(buffer, offset, length, position, callback);
    const copy = async () => {
      const end = Math.min(position + length, this.size);
      let at = position;
      while (at < end) {
        const index = Math.floor(at / BLOCK_SIZE);
        const block = await this.block(index);
        const from = at - index * BLOCK_SIZE;
        const n = Math.min(end - at, block.length - from);
        if (n <= 0) break;
        block.copy(buffer, offset + (at - position), from, from + n);
        at += n;
      }
      return at - position;
    };
    copy().then(
      (bytesRead) => callback(null, bytesRead),
      (err: Error) => callback(err),
    );
  }

  override _readStreamForRange(start: number, end: number): Readable {
    if (end <= start) return Readable.from([]);
    return this.streamRange(start, end);
  }

  override close(callback: (err: Error | null) => void): void {
    this.blocks.clear();
    if (!this.onClose) return void setImmediate(() => callback(null));
    this.onClose().then(
      () => callback(null),
      (err: Error) => callback(err),
    );
  }
}
