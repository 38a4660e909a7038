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
 * Stores several whole objects at once and makes them durable together (one directory sync for the
 * batch on local disk instead of one per object): complete when this resolves.
 */
export async function putBatch(
  storage: ObjectStorage,
  objects: ReadonlyArray<{ key: string; bytes: Buffer; contentType?: string }>,
  concurrency = 8,
): Promise<void> {
  await forEachLimit(objects, concurrency, async (o) => {
    await storage.put(o.key, o.bytes, {
      size: o.bytes.length,
      deferDurability: true,
      ...(o.contentType ? { contentType: o.contentType } : {}),
    });
  });
  await storage.persist(objects.map((o) => o.key));
}
