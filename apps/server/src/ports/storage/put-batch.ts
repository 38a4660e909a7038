import type { ObjectStorage } from './storage';

/** Runs `fn` over `items`, at most `limit` at a time; the first failure stops new starts and is thrown. */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const i = next++;
      try {
        await fn(items[i]!, i);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed !== undefined) throw failed;
}

/**
 * One object of a batch: its bytes in one buffer, or as `parts` stored one after the other and never
 * joined on local disk (a new header and a view into the file it came from, say: `ObjectBody`).
 */
export type BatchObject = { key: string; contentType?: string } & (
  { bytes: Buffer } | { parts: readonly Uint8Array[]; size: number }
);

/**
 * Stores several whole objects at once and makes them durable together (one directory sync for the
 * batch on local disk instead of one per object): complete when this resolves.
 */
export async function putBatch(
  storage: ObjectStorage,
  objects: readonly BatchObject[],
  concurrency = 8,
): Promise<void> {
  await forEachLimit(objects, concurrency, async (o) => {
    const [body, size] = 'bytes' in o ? [o.bytes, o.bytes.length] : [o.parts, o.size];
    await storage.put(o.key, body, {
      size,
      deferDurability: true,
      ...(o.contentType ? { contentType: o.contentType } : {}),
    });
  });
  await storage.persist(objects.map((o) => o.key));
}
