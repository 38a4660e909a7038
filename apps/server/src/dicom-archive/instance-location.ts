import type { Readable } from 'node:stream';
import { RangeNotSatisfiableError, type ByteRange, type ObjectStorage } from '../ports/storage/storage';

/**
 * Where one instance's bytes live: a whole object (`storageOffset` 0), or `sizeBytes` bytes at
 * `storageOffset` inside an uploaded archive that was kept whole instead of being copied file by file.
 */
export interface InstanceLocation {
  storageKey: string;
  storageOffset: number;
  sizeBytes: number;
}

/** Streams an instance's bytes, or a range of them (`end` inclusive, clamped to the instance). */
export function openInstance(
  storage: ObjectStorage,
  loc: InstanceLocation,
  range?: ByteRange,
): Promise<Readable> {
  // An instance inside an archive never starts at 0 (a ZIP entry's local header comes first).
  if (loc.storageOffset === 0 && !range) return storage.get(loc.storageKey);
  const from = range?.start ?? 0;
  if (from >= loc.sizeBytes)
    return Promise.reject(new RangeNotSatisfiableError(loc.storageKey, { start: from }));
  const to = Math.min(range?.end ?? loc.sizeBytes - 1, loc.sizeBytes - 1);
  return storage.get(loc.storageKey, { start: loc.storageOffset + from, end: loc.storageOffset + to });
}

/**
 * The whole instance in memory (for parsing and rendering), or the bytes of `range` in it (fewer at
 * its end).
 */
export async function readInstance(
  storage: ObjectStorage,
  loc: InstanceLocation,
  range?: ByteRange,
): Promise<Buffer> {
  const stream = await openInstance(storage, loc, range);
  // Events rather than async iteration: series metadata reads thousands of headers this way.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('error', reject);
    // Local storage reads a file of up to 1 MiB in one chunk: hand that on rather than copy it.
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  });
}

/**
 * `items` with each one's instance already being read, up to `depth` ahead of the one in use, so
 * storage latency overlaps the work on each. An instance over `maxBytes` is not read ahead (`bytes`
 * null: the caller reads or streams it at its turn), so at most `depth × maxBytes` wait in memory.
 */
export async function* readingAhead<T>(
  storage: ObjectStorage,
  items: AsyncIterable<T> | Iterable<T>,
  locate: (item: T) => InstanceLocation,
  opts: { depth: number; maxBytes: number },
): AsyncGenerator<{ item: T; bytes: Promise<Buffer> | null }> {
  const source = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  const queue: Array<{ item: T; bytes: Promise<Buffer> | null }> = [];
  let ended = false;
  const fill = async () => {
    while (!ended && queue.length < opts.depth) {
      const next = await source.next();
      if (next.done) {
        ended = true;
        break;
      }
      const loc = locate(next.value);
      const bytes = loc.sizeBytes <= opts.maxBytes ? readInstance(storage, loc) : null;
      // A failed read is thrown where the bytes are awaited, not as an unhandled rejection.
      bytes?.catch(() => undefined);
      queue.push({ item: next.value, bytes });
    }
  };
  await fill();
  while (queue.length > 0) {
    const head = queue.shift()!;
    await fill();
    yield head;
  }
}
