import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { forEachLimit } from '../../ports/storage/put-batch';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { StudiesRepository } from '../studies';
import { crcOf, openEntry, type ZipFileEntry } from '../../dicom-archive/zip-reader';
import type { UploadArea } from '../uploads';
import type { IngestRun, PendingInstance, StoragePlan } from './ingest-run';
import { isStored } from './read.stage';
import { archiveKey, instanceKey } from './storage-keys';

/** Instances stored per batch (their keys are recorded before any of them is written). */
const BATCH_COUNT = 256;
/**
 * When the archive is kept whole nothing is written per instance and no bytes stay in memory, so a
 * batch is only a lookup of the instances already stored: one per 5,000 instead of one per 256.
 */
const KEPT_WHOLE_BATCH_COUNT = 5000;
const BATCH_BYTES = 48 * 1024 * 1024;
const PUT_CONCURRENCY = 8;
/**
 * An archive is kept whole (linked into storage, its instances indexed as slices of it) only when the
 * new instances fill at least this share of it; otherwise its instances are copied out one by one, so
 * files that are skipped or already stored never hold much space.
 */
const KEEP_WHOLE_MIN_SHARE = 0.75;

type StoreDeps = {
  repo: Pick<StudiesRepository, 'recordIntents'>;
  storage: ObjectStorage;
};

/**
 * An upload on this machine's disk, all of whose files are stored uncompressed, can become the
 * instances' storage as it is (a hard link, no copy); see KEEP_WHOLE_MIN_SHARE.
 */
export function planStorage(
  deps: { storage: ObjectStorage; uploadArea: UploadArea },
  objectName: string,
  files: readonly ZipFileEntry[],
): StoragePlan {
  const localArchive =
    deps.storage.adoptFile && deps.uploadArea.localPath ? deps.uploadArea.localPath(objectName) : undefined;
  return { keepWhole: localArchive !== undefined && files.length > 0 && files.every(isStored), localArchive };
}

/**
 * Writes new instances. Every key is recorded (an intent) before it is written, so whatever a failed
 * run leaves is found and deleted (see reconcile); a batch is made durable together.
 */
export class StoreStage {
  /** Where the slices of an archive being kept whole start in the run's items. */
  private slicesFrom: number | undefined;
  /** Keeping the archive whole, once started (startKeepingWhole): true once kept, false if it cannot be. */
  private keeping: Promise<boolean> | undefined;
  private cannotKeep = false;

  constructor(
    private readonly run: IngestRun,
    private readonly deps: StoreDeps,
  ) {}

  /** Stores a batch: copied out now, or, when the archive may be kept whole, held for keepWholeOrCopy. */
  async storeBatch(toStore: PendingInstance[]): Promise<void> {
    if (this.run.plan.keepWhole) {
      // Their bytes are already in the archive; the data is dropped so memory stays bounded.
      for (const b of toStore) this.run.toKeep.push({ ...b, data: null });
    } else {
      await this.putEach(toStore);
    }
  }

  /**
   * Starts keeping the archive whole while its files are read: its key recorded (an intent, so that
   * reconcile deletes it whatever comes), then the archive linked into storage and synced. Whether
   * the instances are indexed as slices of it is decided once every file is read (keepWholeOrCopy);
   * an archive kept and then not used is an object nothing indexes, which reconcile deletes.
   */
  startKeepingWhole(): void {
    const { run } = this;
    const key = archiveKey(run.upload.id);
    this.keeping = (async () => {
      await this.deps.repo.recordIntents(run.upload.id, [key]);
      const kept = (await this.deps.storage.adoptFile!(run.plan.localArchive!, key)) !== null;
      if (!kept) this.cannotKeep = true;
      return kept;
    })();
    // Awaited through keepWholeOrCopy's `kept` or by settled(), whichever comes.
    this.keeping.catch(() => undefined);
  }

  /** Settles when nothing started here is still being written. */
  async settled(): Promise<void> {
    await this.keeping?.catch(() => undefined);
  }

  /**
   * Once every file is read. When the held instances fill enough of the archive, indexes them at once
   * as slices of it: `kept` settles once the archive is durable under its key (true), or storage could
   * not adopt it (false: see copyInstead). The index transaction runs meanwhile and commits only after
   * it (ingest-pipeline.ts). Otherwise, or when storage is already known not to adopt it, copies them
   * out one by one and returns null.
   */
  async keepWholeOrCopy(): Promise<{ kept: Promise<boolean> } | null> {
    const { run } = this;
    if (run.toKeep.length === 0) return null;
    const keptBytes = run.toKeep.reduce((n, b) => n + b.size, 0);
    if (keptBytes < KEEP_WHOLE_MIN_SHARE * run.archive.size || this.cannotKeep) {
      await this.putEach(run.toKeep);
      return null;
    }
    if (!this.keeping) this.startKeepingWhole();
    const key = archiveKey(run.upload.id);
    this.slicesFrom = run.items.length;
    for (const b of run.toKeep)
      run.items.push({
        header: b.header,
        sizeBytes: b.size,
        crc32: b.crc,
        storageKey: key,
        storageOffset: b.dataOffset!,
      });
    run.summary.instances += run.toKeep.length;
    return { kept: this.keeping! };
  }

  /** The archive could not be kept whole after all: its slices are taken back and the instances copied out. */
  async copyInstead(): Promise<void> {
    const { run } = this;
    if (this.slicesFrom === undefined) throw new Error('no slices of the archive to take back');
    run.items.length = this.slicesFrom;
    run.summary.instances -= run.toKeep.length;
    this.slicesFrom = undefined;
    await this.putEach(run.toKeep);
  }

  /** Copies instances into objects of their own (recorded first, made durable together). */
  async putEach(toStore: PendingInstance[]): Promise<void> {
    const { run, deps } = this;
    const keys = toStore.map((b) => instanceKey(run.upload.id, b.header.sopInstanceUid));
    await deps.repo.recordIntents(run.upload.id, keys);
    const stored: string[] = [];
    await forEachLimit(toStore, PUT_CONCURRENCY, async (b, i) => {
      const key = keys[i]!;
      // Durable as a batch: one directory sync below instead of one per file.
      const opts = { size: b.size, contentType: 'application/dicom', deferDurability: true };
      if (b.data) {
        await deps.storage.put(key, b.data, opts);
      } else {
        // Large file: its CRC is the central directory's, checked while the bytes are copied.
        const check = new CrcCheck(b.crc);
        const body = new PassThrough();
        const source = await openEntry(run.archive.zip, b.file.entry);
        const copying = pipeline(source, check, body);
        try {
          await Promise.all([deps.storage.put(key, body, opts), copying]);
        } catch (err) {
          if (!check.mismatch) throw err;
          // Nothing indexes the key; reconcile deletes whatever the put left.
          run.skip('damaged entry in the ZIP', b.file.name);
          return;
        }
      }
      stored.push(key);
      run.items.push({
        header: b.header,
        sizeBytes: b.size,
        crc32: b.crc,
        storageKey: key,
        storageOffset: 0,
      });
      run.summary.instances++;
    });
    await deps.storage.persist(stored);
  }
}

/**
 * Collects instances into batches and hands each full batch to `storeBatch`. Storing batch k overlaps
 * reading and parsing batch k+1; batches are stored one at a time, in order, so the quota arithmetic
 * and the dedupe lookups see every earlier batch. The first failure stops the run: `add` throws it.
 */
export class BatchQueue {
  private batch: PendingInstance[] = [];
  private batchBytes = 0;
  private storing: Promise<void> = Promise.resolve();
  private failure: unknown;
  private readonly maxCount: number;

  constructor(
    keepWhole: boolean,
    private readonly storeBatch: (batch: PendingInstance[]) => Promise<void>,
  ) {
    this.maxCount = keepWhole ? KEPT_WHOLE_BATCH_COUNT : BATCH_COUNT;
  }

  add(pending: PendingInstance): void {
    this.batch.push(pending);
    this.batchBytes += pending.data ? pending.size : 0;
    if (this.batch.length >= this.maxCount || this.batchBytes >= BATCH_BYTES) this.flush();
  }

  /** Hands the current batch on (throws an earlier batch's failure instead). */
  flush(): void {
    this.throwIfFailed();
    if (this.batch.length === 0) return;
    const current = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    this.storing = this.storing.then(() => this.storeBatch(current));
    this.storing.catch((err: unknown) => {
      this.failure ??= err;
    });
  }

  /** Settles when every batch handed on is stored or failed. */
  async settled(): Promise<void> {
    await Promise.allSettled([this.storing]);
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}

/** Deletes every object recorded for the upload that nothing indexes, then forgets the records. Safe to repeat. */
export async function reconcile(
  deps: {
    repo: Pick<StudiesRepository, 'unindexedIntents' | 'clearIntents'>;
    storage: Pick<ObjectStorage, 'delete'>;
  },
  uploadId: string,
): Promise<void> {
  const keys = await deps.repo.unindexedIntents(uploadId);
  await forEachLimit(keys, PUT_CONCURRENCY, (key) => deps.storage.delete(key));
  await deps.repo.clearIntents(uploadId);
}

/** Passes bytes through and fails the stream if they do not hash to the CRC measured earlier. */
class CrcCheck extends Transform {
  private crc = 0;
  /** The bytes did not match: the entry is damaged, not the storage. */
  mismatch = false;
  constructor(private readonly expected: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.crc = crcOf(chunk, this.crc);
    cb(null, chunk);
  }
  override _flush(cb: TransformCallback): void {
    this.mismatch = this.crc !== this.expected;
    cb(this.mismatch ? new Error('entry does not match its CRC-32') : null);
  }
}
