import { readInstance, type InstanceLocation } from '../../dicom-archive/instance-location';
import { TS } from '../../dicom/transfer-syntax';
import type { ObjectStorage } from '../../ports/storage/storage';
import { parseInstance, parseInstanceHeader, type ParsedInstance } from './part10';

/**
 * How much of a stored instance is read first to describe it: the elements before Pixel Data of
 * most files (a CT slice's take about 2 KiB, large private headers a few tens).
 */
export const HEADER_READ_BYTES = 32 * 1024;
/** The second read, for a larger header (multi-frame functional groups, long private headers). */
const LARGE_HEADER_READ_BYTES = 1024 * 1024;

/**
 * Most 8-byte item headers of encapsulated Pixel Data read one by one past the first read, while
 * checking that nothing follows it; a file with more fragments than that is read whole.
 */
const MAX_ITEM_READS = 4;

export interface StoredInstance extends InstanceLocation {
  transferSyntaxUid: string | null;
}

/** Runs `read` when one of a fixed number of slots is free (reads of whole files at once). */
export type ReadSlots = <T>(read: () => Promise<T>) => Promise<T>;

export function readSlots(count: number): ReadSlots {
  let free = count;
  const waiting: Array<() => void> = [];
  return async (read) => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await read();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/**
 * A stored instance parsed for its metadata, without reading its pixel data when that can be
 * avoided: the start of the file is parsed up to the top-level Pixel Data, and when Pixel Data is
 * the file's last element that is all the metadata needs (it is a BulkDataURI whatever its value).
 * Otherwise (elements after Pixel Data, a header larger than the reads, no Pixel Data, a Deflated
 * data set, anything unexpected) the whole file is read, in one of `wholeReads`' slots, and parsed
 * by parseInstance; so the DICOM JSON built from either is the same (toDicomJson in part10.ts).
 *
 * The result's bytes may end before the pixel data's value: it is for metadata only (not for
 * bulkValue or readFrame). `firstRead` may make the first read smaller than HEADER_READ_BYTES (when
 * the caller expects a small header); a header it does not hold is then read as without it.
 */
export async function readInstanceMetadata(
  storage: ObjectStorage,
  instance: StoredInstance,
  wholeReads: ReadSlots = (read) => read(),
  firstRead = HEADER_READ_BYTES,
): Promise<ParsedInstance> {
  const stored = instance.transferSyntaxUid;
  if (stored !== TS.deflatedLE) {
    const reads =
      firstRead < HEADER_READ_BYTES
        ? [firstRead, HEADER_READ_BYTES, LARGE_HEADER_READ_BYTES]
        : [HEADER_READ_BYTES, LARGE_HEADER_READ_BYTES];
    for (const bytes of reads) {
      // Reading most of the file already: read all of it.
      if (instance.sizeBytes <= bytes * 2) break;
      const header = await headerOnly(storage, instance, bytes).catch(() => 'whole' as const);
      if (header === 'whole') break;
      if (header !== 'larger') return header;
    }
  }
  return wholeReads(async () => parseInstance(await readInstance(storage, instance), stored));
}

/**
 * The instance's data set parsed from its first `bytes` bytes; 'larger' when they end before Pixel
 * Data, 'whole' when the rest of the file is needed.
 */
async function headerOnly(
  storage: ObjectStorage,
  instance: StoredInstance,
  bytes: number,
): Promise<ParsedInstance | 'larger' | 'whole'> {
  const head = await readInstance(storage, instance, { start: 0, end: bytes - 1 });
  let parsed: ParsedInstance;
  try {
    parsed = parseInstanceHeader(head, instance.transferSyntaxUid);
  } catch {
    return 'larger';
  }
  // Offsets inside an inflated data set are not offsets in the file.
  if (parsed.transferSyntaxUid === TS.deflatedLE || parsed.bytes !== head) return 'whole';
  const pixels = parsed.ds.elements.x7fe00010;
  if (!pixels) return 'larger';
  const size = instance.sizeBytes;
  if (!pixels.hadUndefinedLength) return pixels.dataOffset + pixels.length === size ? parsed : 'whole';
  // Encapsulated: items (offset table, fragments) up to a sequence delimiter, which must end the file.
  if (parsed.transferSyntaxUid === TS.explicitBE) return 'whole';
  let pos = pixels.dataOffset;
  let reads = 0;
  for (;;) {
    if (pos + 8 > size) return 'whole';
    let item: Uint8Array;
    if (pos + 8 <= head.length) item = head.subarray(pos, pos + 8);
    else {
      if (++reads > MAX_ITEM_READS) return 'whole';
      item = await readInstance(storage, instance, { start: pos, end: pos + 7 });
      if (item.length !== 8) return 'whole';
    }
    const view = new DataView(item.buffer, item.byteOffset, 8);
    const group = view.getUint16(0, true);
    const element = view.getUint16(2, true);
    const length = view.getUint32(4, true);
    if (group !== 0xfffe) return 'whole';
    if (element === 0xe0dd) return pos + 8 + length === size ? parsed : 'whole';
    if (element !== 0xe000 || length === 0xffffffff) return 'whole';
    pos += 8 + length;
  }
}
