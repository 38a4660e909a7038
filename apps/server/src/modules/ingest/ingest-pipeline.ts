import type { Logger } from 'pino';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { ArchivePrescan } from './archive-prescan';
import type { StudiesRepository, UploadRow } from '../studies';
import { EntryReadError, type ZipFileEntry, type ZipLimits } from '../../dicom-archive/zip-reader';
import type { UploadArea } from '../uploads';
import type { UsersRepository } from '../accounts';
import { chargeStage, ownerQuota } from './charge.stage';
import { ClassifyStage } from './classify.stage';
import { DedupeStage } from './dedupe.stage';
import { indexStage } from './index.stage';
import { IngestRun } from './ingest-run';
import { closeArchive, finishedUploadSize, listStage, openArchive } from './list.stage';
import { ReadStage, verifiedCrc, type EntryBytes } from './read.stage';
import { BatchQueue, planStorage, StoreStage } from './store.stage';

export interface IngestDeps {
  repo: StudiesRepository;
  storage: ObjectStorage;
  uploadArea: UploadArea;
  users: Pick<UsersRepository, 'findById'>;
  defaultMaxStorageGB: number;
  limits: ZipLimits;
  /** Decoded image size an instance may declare (see pixel-budget.ts). */
  maxDecodedBytes?: number;
  /** Entries already read while the upload arrived (file uploads only). */
  prescan?: ArchivePrescan;
}

/** The archive's slices were indexed but storage could not adopt it: they are copied out instead. */
class ArchiveNotAdopted extends Error {}

/**
 * Stores what the run holds and indexes the run. Keeping an archive whole (started with processing,
 * StoreStage.startKeepingWhole) may still be under way: the index transaction runs beside it and
 * commits only once the archive is kept; if storage could not adopt it after all, the transaction is
 * rolled back and the instances are copied out and indexed instead.
 */
async function storeAndIndex(run: IngestRun, deps: IngestDeps, store: StoreStage): Promise<void> {
  const started = Date.now();
  const adopting = await store.keepWholeOrCopy();
  if (!adopting) {
    if (run.toKeep.length > 0) run.timed('store', started);
    return indexStage(run, deps);
  }
  const kept = adopting.kept.then((ok) => {
    run.timed('store', started);
    return ok;
  });
  // Awaited below; failing before the transaction asks for it must not count as unhandled.
  kept.catch(() => undefined);
  try {
    await indexStage(run, deps, async () => {
      if (!(await kept)) throw new ArchiveNotAdopted();
    });
  } catch (err) {
    // Never return while the archive is still being kept: reconcile may run next.
    const adopted = await kept.catch(() => undefined);
    if (!(err instanceof ArchiveNotAdopted) || adopted !== false) throw err;
    const copying = Date.now();
    await store.copyInstead();
    run.timed('store', copying);
    await indexStage(run, deps);
  }
}

/**
 * Turns one uploaded ZIP into indexed instances: list → (read → classify → dedupe, file by file) →
 * in batches dedupe against stored → charge → store → index. Throws IngestError (the user is told
 * why), QuotaExceededError, or anything else (retried). What it wrote and nothing indexes is left to
 * reconcile (see store.stage.ts).
 */
export async function runIngest(deps: IngestDeps, upload: UploadRow, log: Logger): Promise<void> {
  const startedAt = Date.now();
  // What was learned while the upload arrived (this process, same bytes): the entries read, and the
  // archive's listing, made when its last byte came. It comes back while the archive is opened.
  const taking = deps.prescan?.take(upload.objectName);
  const [size, quota] = await Promise.all([
    finishedUploadSize(deps.uploadArea, upload.objectName),
    ownerQuota(deps.users, upload.ownerId, deps.defaultMaxStorageGB),
  ]);
  const archive = await openArchive(deps.uploadArea, upload.objectName, size, log);
  try {
    const taken = await taking;
    const listing = await listStage(archive.zip, deps.limits, taken?.listing);
    const files = listing.files;
    const plan = planStorage(deps, upload.objectName, files);
    const run = new IngestRun(upload, log, archive, quota, plan, startedAt);
    run.summary.stages.list = listing.ms;
    run.summary.files = files.length + listing.skipped.length;
    for (const { reason, name } of listing.skipped) run.skip(reason, name);

    // When the archive is kept whole, the entries read while it arrived need not be read again.
    const reader = new ReadStage(archive, files, plan.keepWhole ? taken?.entries : undefined);
    const classifier = new ClassifyStage(run, deps.maxDecodedBytes);
    const dedupe = new DedupeStage(run, deps.repo);
    const store = new StoreStage(run, deps);
    // Started now, so that the archive is synced while its files are read (store.stage.ts).
    if (plan.keepWhole) store.startKeepingWhole();
    const batches = new BatchQueue(plan.keepWhole, async (batch) => {
      const started = Date.now();
      const { toStore, addedBytes } = await dedupe.againstStored(batch);
      chargeStage(run, addedBytes);
      await store.storeBatch(toStore);
      run.timed('store', started);
    });

    try {
      await readEveryFile(run, files, { reader, classifier, dedupe, batches });
      await storeAndIndex(run, deps, store);
    } finally {
      // Never return while the archive is still being kept: reconcile may run next.
      await store.settled();
    }
  } finally {
    await closeArchive(archive);
  }
}

/** The stages a run reads its files through, file by file. */
interface FileStages {
  reader: ReadStage;
  classifier: ClassifyStage;
  dedupe: DedupeStage;
  batches: BatchQueue;
}

/**
 * Reads, classifies and checks every file of the listing, handing each new instance to the batches;
 * what brings no instance is counted as skipped, by reason and name.
 */
async function readEveryFile(
  run: IngestRun,
  files: ZipFileEntry[],
  { reader, classifier, dedupe, batches }: FileStages,
): Promise<void> {
  try {
    for (const [index, file] of files.entries()) {
      const started = Date.now();
      const referencedTs = classifier.referenceOf(file);
      let bytes: EntryBytes;
      try {
        bytes = await reader.read(index, referencedTs === undefined);
      } catch (err) {
        if (err instanceof EntryReadError) {
          run.skip('damaged entry in the ZIP', file.name);
          continue;
        }
        throw err;
      }
      if (bytes.kind === 'prescanned') run.summary.prescanned++;
      const header = classifier.classify(file, bytes, referencedTs);
      if (!header) {
        run.timed('unzipParse', started);
        continue;
      }
      if (dedupe.seenBefore(header)) {
        run.skip('duplicate instance in the upload', file.name);
        continue;
      }
      const crc = verifiedCrc(file, bytes);
      if (crc === null) {
        run.skip('damaged entry in the ZIP', file.name);
        continue;
      }
      dedupe.take(header);
      run.timed('unzipParse', started);
      batches.add({
        header,
        crc,
        size: file.size,
        data: bytes.kind === 'read' && bytes.complete ? bytes.data : null,
        file,
        dataOffset: bytes.dataOffset,
      });
    }
    batches.flush();
  } finally {
    // Never leave a batch writing or a read pending behind us, whatever happened while reading.
    await Promise.all([batches.settled(), reader.settled()]);
  }
  batches.throwIfFailed();
}
