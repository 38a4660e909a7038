import { createHash } from 'node:crypto';
import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type yauzl from 'yauzl';
import { z } from 'zod';
import { BYTES_PER_GB } from '@mi/contracts/rules';
import { defineJob } from '../../jobs/queue';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { MailService } from '../mail/mail.service';
import { studyProcessedEmail } from '../mail/templates';
import type { RangeReader, UploadArea } from '../uploads/upload-area';
import type { UsersRepository } from '../users/users.repository';
import type { ArchivePrescan } from './archive-prescan';
import type { InstanceHeader } from './dicom-header';
import { classifyEntry, type EntryOutcome } from './entry-classifier';
import {
  QuotaExceededError,
  type IndexedInstance,
  type StudiesRepository,
  type UploadRow,
} from './studies.repository';
import {
  crcOf,
  DEFAULT_ZIP_LIMITS,
  EntryReadError,
  IngestError,
  listZipFiles,
  openEntry,
  readEntryPrefix,
  readStoredEntry,
  type ZipFileEntry,
  type ZipLimits,
} from './zip-reader';

export const processStudyPayload = z.object({
  /** study_uploads.id */
  uploadId: z.uuid(),
  /** The owner, so pending jobs can be listed per user. */
  userId: z.uuid(),
  objectName: z.string(),
});

/** Files up to this size are read into memory once; larger ones are read twice (header prefix, then copy). */
const IN_MEMORY_MAX = 64 * 1024 * 1024;
/** Prefix of a large file read to find its header. */
const HEADER_PREFIX = 16 * 1024 * 1024;
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
/** Stored entries read ahead of the one being parsed. */
const READ_AHEAD_COUNT = 16;
const READ_AHEAD_BYTES = 32 * 1024 * 1024;

interface Deps {
  repo: StudiesRepository;
  storage: ObjectStorage;
  uploadArea: UploadArea;
  users: UsersRepository;
  mail: MailService;
  appUrl: string;
  defaultMaxStorageGB: number;
  zipLimits?: Partial<ZipLimits>;
  /** Decoded image size an instance may declare (see pixel-budget.ts). */
  maxDecodedBytes?: number;
  retryLimit?: number;
  /** Entries already read while the upload arrived (file uploads only). */
  prescan?: ArchivePrescan;
}

interface Summary {
  files: number;
  /** Files whose reading was done while the upload arrived. */
  prescanned: number;
  instances: number;
  unchanged: number;
  skipped: number;
  skipReasons: Record<string, number>;
  stages: Record<string, number>;
}

/** Storage key of one instance: unique per upload, and the same on every retry of that upload. */
export function instanceKey(uploadId: string, sopInstanceUid: string): string {
  const sop =
    /^[0-9]+(\.[0-9]+)*$/.test(sopInstanceUid) && sopInstanceUid.length <= 64
      ? sopInstanceUid
      : createHash('sha256').update(sopInstanceUid).digest('hex').slice(0, 40);
  return `dicom/${uploadId}/${sop}.dcm`;
}

/** Storage key of an uploaded archive kept whole: the same on every retry of that upload. */
export function archiveKey(uploadId: string): string {
  return `dicom/${uploadId}/archive.zip`;
}

/**
 * process-study: turns one uploaded ZIP into indexed studies. Idempotent: object keys depend only
 * on the upload and the SOP Instance UID, every key is recorded before it is written, and one
 * transaction indexes everything at the end; whatever a failed or crashed run wrote and nothing
 * indexes is deleted (on failure, on the retry's completion, or by the stale-upload sweep).
 */
export function processStudyJob(deps: Deps) {
  const retryLimit = deps.retryLimit ?? 3;
  const limits: ZipLimits = { ...DEFAULT_ZIP_LIMITS, ...deps.zipLimits };

  async function reconcile(uploadId: string) {
    const keys = await deps.repo.unindexedIntents(uploadId);
    await forEachLimit(keys, PUT_CONCURRENCY, (key) => deps.storage.delete(key));
    await deps.repo.clearIntents(uploadId);
  }

  async function notifyByEmail(ownerId: string, ok: boolean) {
    const owner = await deps.users.findById(ownerId);
    if (owner?.emailNotifications)
      await deps.mail.send(owner.email, studyProcessedEmail({ ok, appUrl: deps.appUrl }));
  }

  async function fail(upload: UploadRow, reason: string, summary: Partial<Summary>, log: Logger) {
    await deps.repo.failUpload(upload.id, reason, summary, {
      userId: upload.ownerId,
      type: 'system',
      title: /^(No DICOM images|The upload is empty)/.test(reason)
        ? 'No study found in your upload'
        : 'Upload could not be processed',
      description: reason,
    });
    await reconcile(upload.id);
    await deps.uploadArea.remove(upload.objectName);
    await notifyByEmail(upload.ownerId, false);
    log.info({ uploadId: upload.id, reason }, 'upload failed');
  }

  /** After the indexing transaction: drop unindexed objects and the ZIP, send the email. Safe to repeat. */
  async function finish(upload: UploadRow, firstTime: boolean) {
    await reconcile(upload.id);
    await deps.uploadArea.remove(upload.objectName);
    if (firstTime) await notifyByEmail(upload.ownerId, true);
  }

  async function ingest(upload: UploadRow, log: Logger): Promise<void> {
    const t0 = Date.now();
    const stages: Record<string, number> = { list: 0, unzipParse: 0, store: 0, index: 0 };
    const summary: Summary = {
      files: 0,
      prescanned: 0,
      instances: 0,
      unchanged: 0,
      skipped: 0,
      skipReasons: {},
      stages,
    };
    const skip = (reason: string) => {
      summary.skipped++;
      summary.skipReasons[reason] = (summary.skipReasons[reason] ?? 0) + 1;
    };

    const info = await deps.uploadArea.info(upload.objectName);
    if (!info || info.size === undefined || info.offset !== info.size) {
      throw new IngestError('The upload is missing or did not finish. Please upload the files again.');
    }
    const owner = await deps.users.findById(upload.ownerId);
    if (!owner) throw new IngestError('The account no longer exists.');
    const maxBytes = owner.maxStorageBytes ?? Math.round(deps.defaultMaxStorageGB * BYTES_PER_GB);

    let zip: yauzl.ZipFile;
    try {
      zip = await deps.uploadArea.openZip(upload.objectName, info.size);
    } catch (err) {
      log.info({ err: (err as Error).message }, 'not a readable zip');
      throw new IngestError(
        'The file is not a complete ZIP archive (it may be truncated or damaged). Please upload it again.',
      );
    }
    let ranges: RangeReader;
    try {
      ranges = await deps.uploadArea.openRanges(upload.objectName);
    } catch (err) {
      zip.close();
      throw err;
    }
    try {
      const tl = Date.now();
      const listed = await listZipFiles(zip, limits);
      stages.list = Date.now() - tl;
      summary.files = listed.files.length + listed.skipped.length;
      for (const s of listed.skipped) skip(s.reason);

      // DICOMDIRs first, so files they reference are known before those files are read.
      const isDicomDir = (f: ZipFileEntry) => /(^|\/)DICOMDIR$/i.test(f.name);
      const ordered = [...listed.files.filter(isDicomDir), ...listed.files.filter((f) => !isDicomDir(f))];
      const referenced = new Map<string, string | null>();
      const seen = new Set<string>();
      const items: IndexedInstance[] = [];
      let newBytes = 0;

      type Pending = {
        header: InstanceHeader;
        crc: number;
        size: number;
        data: Buffer | null;
        file: ZipFileEntry;
        /** Where the entry's bytes start in the archive (stored entries). */
        dataOffset: number | null;
      };
      let batch: Pending[] = [];
      let batchBytes = 0;

      // An upload on this machine's disk, all of whose files are stored uncompressed, can become the
      // instances' storage as it is (a hard link, no copy); see KEEP_WHOLE_MIN_SHARE.
      const isStored = (f: ZipFileEntry) => f.entry.compressionMethod === 0 && f.size <= IN_MEMORY_MAX;
      const localArchive =
        deps.storage.adoptFile && deps.uploadArea.localPath
          ? deps.uploadArea.localPath(upload.objectName)
          : undefined;
      const keepWhole = localArchive !== undefined && ordered.length > 0 && ordered.every(isStored);
      /** New instances waiting for the decision to keep the archive whole or copy them out. */
      const toKeep: Pending[] = [];

      /** Copies instances into objects of their own (recorded first, made durable together). */
      const putEach = async (toStore: Pending[]) => {
        const keys = toStore.map((b) => instanceKey(upload.id, b.header.sopInstanceUid));
        await deps.repo.recordIntents(upload.id, keys);
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
            const source = await openEntry(zip, b.file.entry);
            const copying = pipeline(source, check, body);
            try {
              await Promise.all([deps.storage.put(key, body, opts), copying]);
            } catch (err) {
              if (!check.mismatch) throw err;
              // Nothing indexes the key; reconcile deletes whatever the put left.
              skip('damaged entry in the ZIP');
              return;
            }
          }
          stored.push(key);
          items.push({
            header: b.header,
            sizeBytes: b.size,
            crc32: b.crc,
            storageKey: key,
            storageOffset: 0,
          });
          summary.instances++;
        });
        await deps.storage.persist(stored);
      };

      const store = async (current: Pending[]) => {
        const ts = Date.now();
        const existing = await deps.repo.existingInstances(
          upload.ownerId,
          current.map((b) => ({ studyUid: b.header.studyInstanceUid, sopUid: b.header.sopInstanceUid })),
        );
        const same = new Set(existing.map((e) => `${e.studyUid}|${e.sopUid}|${e.sizeBytes}|${e.crc32}`));
        const oldSize = new Map(existing.map((e) => [`${e.studyUid}|${e.sopUid}`, e.sizeBytes]));
        const toStore: Pending[] = [];
        for (const b of current) {
          const id = `${b.header.studyInstanceUid}|${b.header.sopInstanceUid}`;
          if (same.has(`${id}|${b.size}|${b.crc}`)) {
            summary.unchanged++;
            items.push({ header: b.header, sizeBytes: b.size, crc32: b.crc, storageKey: null });
            continue;
          }
          newBytes += b.size - (oldSize.get(id) ?? 0);
          toStore.push(b);
        }
        if (owner.usedStorageBytes + newBytes > maxBytes) throw new QuotaExceededError(maxBytes);
        if (keepWhole) {
          // Their bytes are already in the archive; the data is dropped so memory stays bounded.
          for (const b of toStore) toKeep.push({ ...b, data: null });
        } else {
          await putEach(toStore);
        }
        stages.store! += Date.now() - ts;
      };

      // Storing batch k overlaps reading and parsing batch k+1; batches are stored one at a time, in
      // order, so the quota arithmetic and the dedupe lookups see every earlier batch.
      let storing: Promise<void> = Promise.resolve();
      let storeFailure: unknown;
      const flush = () => {
        if (storeFailure !== undefined) throw storeFailure;
        if (batch.length === 0) return;
        const current = batch;
        batch = [];
        batchBytes = 0;
        storing = storing.then(() => store(current));
        storing.catch((err: unknown) => {
          storeFailure ??= err;
        });
      };

      // What was learned while the upload arrived (this process, same bytes), when the archive is kept
      // whole: those entries' bytes need not be read again.
      const taken = deps.prescan?.take(upload.objectName);
      const prescanned = keepWhole ? taken : undefined;
      const prescanFor = (f: ZipFileEntry) => {
        const pre = prescanned?.get(f.entry.relativeOffsetOfLocalHeader);
        return pre && pre.size === f.size && pre.crc === f.entry.crc32 >>> 0 ? pre : undefined;
      };

      // Stored entries are read a few ahead of the one being parsed: each read waits on the disk (or
      // on S3), and waiting for several at once instead of one after the other keeps the loop busy.
      const ahead = new Map<number, Promise<{ data: Buffer; dataOffset: number }>>();
      let aheadBytes = 0;
      let nextAhead = 0;
      const readAhead = (from: number) => {
        nextAhead = Math.max(nextAhead, from);
        while (nextAhead < ordered.length && ahead.size < READ_AHEAD_COUNT && aheadBytes < READ_AHEAD_BYTES) {
          const f = ordered[nextAhead]!;
          if (isStored(f) && !prescanFor(f)) {
            const read = readStoredEntry(ranges, f.entry);
            // Failures surface when the entry's turn comes; until then they are not unhandled.
            read.catch(() => undefined);
            ahead.set(nextAhead, read);
            aheadBytes += f.size;
          }
          nextAhead++;
        }
      };

      try {
        for (const [index, file] of ordered.entries()) {
          const tp = Date.now();
          const refTs = referenced.get(file.name.toUpperCase());
          // A DICOMDIR may change how a file is read, so the prescan is used only for files it does not list.
          const pre = refTs === undefined ? prescanFor(file) : undefined;
          let outcome: EntryOutcome;
          let data: Buffer | null = null;
          let complete = true;
          let dataOffset: number | null = null;
          if (pre) {
            ({ outcome, dataOffset } = pre);
            summary.prescanned++;
          } else {
            try {
              if (isStored(file)) {
                readAhead(index);
                const read = ahead.get(index) ?? readStoredEntry(ranges, file.entry);
                if (ahead.delete(index)) aheadBytes -= file.size;
                ({ data, dataOffset } = await read);
                readAhead(index + 1);
              } else {
                ({ data, complete } = await readEntryPrefix(
                  zip,
                  file.entry,
                  file.size <= IN_MEMORY_MAX ? file.size + 1 : HEADER_PREFIX,
                ));
              }
            } catch (err) {
              if (err instanceof EntryReadError) {
                skip('damaged entry in the ZIP');
                continue;
              }
              throw err;
            }
            outcome = classifyEntry(data, complete, refTs, {
              fileSize: file.size,
              maxDecodedBytes: deps.maxDecodedBytes,
            });
          }
          if (outcome.kind === 'skip') {
            skip(outcome.reason);
            stages.unzipParse! += Date.now() - tp;
            continue;
          }
          if (outcome.kind === 'dicomdir') {
            const base = file.name.includes('/') ? file.name.slice(0, file.name.lastIndexOf('/') + 1) : '';
            for (const f of outcome.files)
              referenced.set(`${base}${f.path.join('/')}`.toUpperCase(), f.transferSyntaxUid);
            skip('DICOMDIR (media index, read)');
            stages.unzipParse! += Date.now() - tp;
            continue;
          }
          const header = outcome.header;
          const dedupe = `${header.studyInstanceUid}|${header.sopInstanceUid}`;
          if (seen.has(dedupe)) {
            skip('duplicate instance in the upload');
            continue;
          }
          // Whole files are checked against the central directory here (stored ones were, as they were
          // read or prescanned); large ones while they are copied.
          const crc = data && complete && dataOffset === null ? crcOf(data) : file.entry.crc32 >>> 0;
          if (complete && crc !== file.entry.crc32 >>> 0) {
            skip('damaged entry in the ZIP');
            continue;
          }
          seen.add(dedupe);
          stages.unzipParse! += Date.now() - tp;
          batch.push({ header, crc, size: file.size, data: complete ? data : null, file, dataOffset });
          batchBytes += complete && data ? file.size : 0;
          if (batch.length >= (keepWhole ? KEPT_WHOLE_BATCH_COUNT : BATCH_COUNT) || batchBytes >= BATCH_BYTES)
            flush();
        }
        flush();
      } finally {
        // Never leave a batch writing or a read pending behind us, whatever happened while reading.
        await Promise.allSettled([storing, ...ahead.values()]);
      }
      if (storeFailure !== undefined) throw storeFailure;

      if (toKeep.length > 0) {
        const ts = Date.now();
        const keptBytes = toKeep.reduce((n, b) => n + b.size, 0);
        let kept = false;
        if (keptBytes >= KEEP_WHOLE_MIN_SHARE * info.size) {
          // Recorded before it exists, like every object a run writes, so a failed run removes it.
          const key = archiveKey(upload.id);
          await deps.repo.recordIntents(upload.id, [key]);
          kept = (await deps.storage.adoptFile!(localArchive!, key)) !== null;
          if (kept) {
            for (const b of toKeep)
              items.push({
                header: b.header,
                sizeBytes: b.size,
                crc32: b.crc,
                storageKey: key,
                storageOffset: b.dataOffset!,
              });
            summary.instances += toKeep.length;
          }
        }
        if (!kept) await putEach(toKeep);
        stages.store! += Date.now() - ts;
      }

      if (items.length === 0) {
        const reasons = Object.entries(summary.skipReasons)
          .map(([r, n]) => `${n} ${r}`)
          .join(', ');
        throw new IngestError(
          summary.files === 0
            ? 'The upload is empty: no files were found in the ZIP.'
            : `No DICOM images were found in your upload. ${summary.skipped} ${summary.skipped === 1 ? 'file was' : 'files were'} skipped${reasons ? ` (${reasons})` : ''}.`,
        );
      }

      const ti = Date.now();
      const studyCount = new Set(items.map((i) => i.header.studyInstanceUid)).size;
      await deps.repo.commitIngest({
        uploadId: upload.id,
        ownerId: upload.ownerId,
        defaultMaxBytes: Math.round(deps.defaultMaxStorageGB * BYTES_PER_GB),
        items,
        summary: { ...summary },
        notification: () => ({
          userId: upload.ownerId,
          type: 'system',
          title: studyCount === 1 ? 'Study processed' : 'Studies processed',
          description: describeSuccess(studyCount, summary),
        }),
      });
      stages.index = Date.now() - ti;
      stages.total = Date.now() - t0;
      await deps.repo.setUploadSummary(upload.id, { ...summary });
      log.info(
        { uploadId: upload.id, instances: summary.instances, skipped: summary.skipped, stages },
        'upload processed',
      );
    } finally {
      zip.close();
      await ranges.close().catch(() => undefined);
    }
  }

  const job = defineJob({
    name: 'process-study',
    payload: processStudyPayload,
    retry: { limit: retryLimit, delaySeconds: 10 },
    async handler({ uploadId }, { log }) {
      const upload = await deps.repo.findUpload(uploadId);
      if (!upload || upload.status === 'failed') return;
      if (upload.status === 'completed') {
        // A run that died after committing: only the clean-up is left.
        await finish(upload, false);
        return;
      }
      const attempt = await deps.repo.markProcessing(upload.id);
      try {
        await ingest(upload, log);
        await finish(upload, true);
      } catch (err) {
        if (err instanceof IngestError) return fail(upload, err.message, {}, log);
        if (err instanceof QuotaExceededError) {
          const gb = Math.round((err.maxBytes / BYTES_PER_GB) * 100) / 100;
          return fail(
            upload,
            `Storage Limit Exceeded: this upload would exceed your storage limit of ${gb} GB.`,
            {},
            log,
          );
        }
        await reconcile(upload.id);
        if (attempt > retryLimit) {
          log.error({ err }, 'processing failed on every attempt');
          return fail(
            upload,
            'The upload could not be processed because of an error on our side. Please try again later.',
            {},
            log,
          );
        }
        throw err;
      }
    },
  });
  return Object.assign(job, {
    /** Ends an upload whose processing keeps getting lost: marks it failed, tells the owner, cleans up. */
    abandon: (upload: UploadRow, reason: string, log: Logger) => fail(upload, reason, {}, log),
  });
}
export type ProcessStudyJob = ReturnType<typeof processStudyJob>;

function describeSuccess(studyCount: number, s: Summary): string {
  const images = s.instances + s.unchanged;
  let text = `Your upload has been processed: ${studyCount} ${studyCount === 1 ? 'study' : 'studies'} with ${images} ${images === 1 ? 'image' : 'images'} ${studyCount === 1 ? 'is' : 'are'} ready in My Studies.`;
  // A re-upload adds nothing: say so, rather than read as if new images arrived.
  if (s.unchanged > 0 && s.instances === 0)
    text += ` ${s.unchanged === 1 ? 'It was' : 'All of them were'} already there, so nothing new was added.`;
  else if (s.unchanged > 0)
    text += ` ${s.unchanged} of them ${s.unchanged === 1 ? 'was' : 'were'} already there.`;
  const skippedFiles = s.skipped - (s.skipReasons['DICOMDIR (media index, read)'] ?? 0);
  if (skippedFiles > 0) {
    const reasons = Object.entries(s.skipReasons)
      .filter(([r]) => !r.startsWith('DICOMDIR'))
      .map(([r, n]) => `${n} ${r}`)
      .join(', ');
    text += ` ${skippedFiles} ${skippedFiles === 1 ? 'file was' : 'files were'} skipped (${reasons}).`;
  }
  return text;
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

async function forEachLimit<T>(
  items: T[],
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
