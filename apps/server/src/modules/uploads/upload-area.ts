import fs, { createWriteStream } from 'node:fs';
import { open, readdir, readFile, rmdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { FileStore } from '@tus/file-store';
import { ERRORS, type DataStore } from '@tus/utils';
import yauzl from 'yauzl';
import type { Config } from '../../config';
import type { ObjectStorage } from '../../ports/storage/storage';
import { openCachedZip, openCachedZipFile, readFileRange } from '../../dicom-archive/cached-zip';
import { DurableS3Store } from './durable-s3-store';
import { OBJECT_NAME } from './upload-paths';

/** What processing needs to know about a tus upload. */
export interface UploadInfo {
  id: string;
  /** Announced length (Upload-Length). */
  size: number | undefined;
  /** Bytes received so far. */
  offset: number;
  metadata: Record<string, string | null>;
}

/**
 * Where tus uploads land before processing: files under DATA_DIR/uploads by default, or objects in
 * the S3 bucket (same keys, `{userId}/{uuid}/study.zip`) when S3 is configured. Processing reads the
 * archive in place with random access, so the ZIP is never copied or held in memory.
 */
export interface UploadArea {
  readonly kind: 'fs' | 's3';
  /** The name the storage token reports as `bucket`. */
  readonly bucket: string;
  readonly datastore: DataStore;
  info(id: string): Promise<UploadInfo | null>;
  /** Opens a finished upload as a ZIP (lazy entries, file names left as bytes for our own checks). */
  openZip(id: string, size: number): Promise<yauzl.ZipFile>;
  /** Positional reads of a finished upload, for entries that can be read without yauzl's streams. */
  openRanges(id: string): Promise<RangeReader>;
  /** The finished upload's file on local disk, for stores that can adopt it without a copy; fs only. */
  localPath?(id: string): string;
  /** Idempotent. */
  remove(id: string): Promise<void>;
  /**
   * Removes uploads abandoned before `createdBefore`: unfinished ones always, finished ones only when
   * `isClaimed` says nobody asked for them to be processed. Returns how many were removed.
   */
  sweep(createdBefore: Date, isClaimed: (id: string) => Promise<boolean>): Promise<number>;
}

/** Follows the bytes of uploads kept on local disk as they are written (the archive prescan). */
export interface UploadWriteObserver {
  /**
   * A write of upload `id`, a file at `path`, starts at `offset`. Returns what to tell as its bytes
   * reach the file, in order, and once it ends; a write that fails part-way leaves the file where the
   * next write starts.
   */
  beginWrite(id: string, path: string, offset: number): Promise<UploadWriteScan | undefined>;
}

/** One write as the observer follows it. */
export interface UploadWriteScan {
  /** The next `bytes` of the write are in the file (it may read them from there). */
  written(bytes: number): void;
  /** The write ended, whether or not it succeeded. */
  end(): void;
}

/** Byte ranges of one upload. */
export interface RangeReader {
  /** Up to `length` bytes from `start` (fewer at the end of the upload). */
  read(start: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

/** Abandoned uploads are removed after this long unless UPLOAD_EXPIRY_HOURS says otherwise. */
export const UPLOAD_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;

/** Uploads received straight into the S3 bucket (tus's S3 store), swept by their age there. */
function s3UploadArea(config: Config, storage: ObjectStorage): UploadArea {
  const expiryMs = config.uploadExpiryMs;
  const s3 = config.s3!;
  const clientConfig = {
    region: s3.region,
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  } as const;
  // Pending bytes short of a part stay in the bucket until replaced (durable-s3-store.ts).
  const datastore = new DurableS3Store({
    partSize: 16 * 1024 * 1024,
    expirationPeriodInMilliseconds: expiryMs,
    s3ClientConfig: { bucket: s3.bucket, ...clientConfig },
  });
  const client = new S3Client(clientConfig);
  return {
    kind: 's3',
    bucket: s3.bucket,
    datastore,
    info: (id) => readInfo(datastore, id),
    async openZip(id, size) {
      const readAt = (start: number, length: number) => readObjectRange(storage, id, start, length);
      return openCachedZip({
        size,
        readAt,
        streamRange: (start, end) => rangeStream(storage, id, start, end),
      });
    },
    async openRanges(id) {
      return {
        read: (start, length) => readObjectRange(storage, id, start, length),
        async close() {},
      };
    },
    async remove(id) {
      // Aborts the multipart upload when one is still open. For a finished upload the abort fails
      // (NoSuchUpload) before tus deletes anything, so the objects are deleted here either way:
      // the archive, tus's `.info` record and its `.part` buffer of bytes short of a part.
      await datastore.remove(id).catch(() => undefined);
      await Promise.all(
        [id, `${id}.info`, `${id}.part`].map((key) => storage.delete(key).catch(() => undefined)),
      );
    },
    // Unfinished uploads are open S3 multipart uploads, listed here and removed with everything they
    // left in the bucket (tus's own deleteExpired leaves the `.part` object). Finished, unclaimed archives
    // are plain objects among the study files; finding them would mean listing the whole bucket,
    // so a bucket lifecycle rule on `*/study.zip` is the tool for those.
    async sweep(createdBefore) {
      let removed = 0;
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      for (;;) {
        const page = await client.send(
          new ListMultipartUploadsCommand({
            Bucket: s3.bucket,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        );
        for (const u of page.Uploads ?? []) {
          if (!u.Key || !OBJECT_NAME.test(u.Key) || !u.Initiated || !(u.Initiated < createdBefore)) continue;
          await this.remove(u.Key);
          removed++;
        }
        if (!page.IsTruncated) return removed;
        keyMarker = page.NextKeyMarker;
        uploadIdMarker = page.NextUploadIdMarker;
      }
    },
  };
}

/** Uploads received into files under the data directory, written through as they arrive. */
function fileUploadArea(config: Config, observer?: UploadWriteObserver): UploadArea {
  const expiryMs = config.uploadExpiryMs;
  const directory = path.join(config.dataDir, 'uploads');
  const fileFor = (id: string) => {
    const file = path.resolve(directory, id);
    if (!file.startsWith(directory + path.sep)) throw new Error('upload id outside the upload directory');
    return file;
  };
  const datastore = new BufferedFileStore(fileFor, observer, {
    directory,
    expirationPeriodInMilliseconds: expiryMs,
  });
  return {
    kind: 'fs',
    bucket: 'uploads',
    datastore,
    info: (id) => readInfo(datastore, id),
    localPath: fileFor,
    openZip: (id, size) => openCachedZipFile(fileFor(id), size),
    async openRanges(id) {
      const file = fileFor(id);
      const fh = await open(file, 'r');
      return {
        read: (start, length) => readFileRange(fh, start, length),
        close: () => fh.close(),
      };
    },
    async remove(id) {
      await datastore.remove(id).catch(() => undefined);
      // `{userId}/{uuid}/` folders would otherwise pile up empty.
      let dir = path.dirname(fileFor(id));
      while (dir.startsWith(directory + path.sep)) {
        try {
          await rmdir(dir);
        } catch {
          break;
        }
        dir = path.dirname(dir);
      }
    },
    // @tus/file-store's own deleteExpired only looks at the top folder, and our ids are nested
    // (`{userId}/{uuid}/study.zip`), so walk the tree for the `.json` records tus writes per upload.
    async sweep(createdBefore, isClaimed) {
      let removed = 0;
      for await (const id of uploadIds(directory)) {
        if (!OBJECT_NAME.test(id)) continue;
        const record = await readFile(path.join(directory, `${id}.json`), 'utf8')
          .then((text) => JSON.parse(text) as { creation_date?: string })
          .catch(() => null);
        const created = record?.creation_date ? new Date(record.creation_date) : null;
        if (!created || !(created < createdBefore)) continue;
        const info = await readInfo(datastore, id);
        const finished = info !== null && info.size !== undefined && info.offset === info.size;
        if (finished && (await isClaimed(id))) continue;
        await this.remove(id);
        removed++;
      }
      return removed;
    },
  };
}

export function createUploadArea(
  config: Config,
  storage: ObjectStorage,
  observer?: UploadWriteObserver,
): UploadArea {
  return config.s3 && storage.kind === 's3'
    ? s3UploadArea(config, storage)
    : fileUploadArea(config, observer);
}

/** Bytes a PATCH may hold in memory while earlier ones are being written (at most this per upload). */
const WRITE_BUFFER = 4 * 1024 * 1024;
/** An upload's file is synced each time this many more bytes have been written to it. */
const SYNC_EVERY = 16 * 1024 * 1024;

/**
 * tus's FileStore, with three changes for large uploads:
 * - a larger write buffer: tus's 16 KiB one made each 64 KiB socket read wait for its own write before
 *   the next was read, so a fast upload ran at one thread-pool round trip per chunk. Now the request
 *   keeps being read while a write is under way, and the chunks that piled up go down in one writev;
 * - the observer (the archive prescan) is told as the bytes reach the file;
 * - the file is synced as it grows, so that the sync that makes it durable once processing keeps it
 *   has only the last few megabytes left to write.
 */
class BufferedFileStore extends FileStore {
  constructor(
    private readonly fileOf: (id: string) => string,
    private readonly observer: UploadWriteObserver | undefined,
    options: ConstructorParameters<typeof FileStore>[0],
  ) {
    super(options);
  }

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const file = this.fileOf(id);
    const observe = await this.observer?.beginWrite(id, file, offset);
    const flusher = new WriteBehind(file);
    const out = createWriteStream(file, {
      flags: 'r+',
      start: offset,
      highWaterMark: WRITE_BUFFER,
      fs: reportingWrites((bytes) => {
        observe?.written(bytes);
        flusher.passed(bytes);
      }),
    });
    try {
      await pipeline(readable, out);
    } catch {
      throw ERRORS.FILE_WRITE_ERROR;
    } finally {
      observe?.end();
      flusher.end();
    }
    return offset + out.bytesWritten;
  }
}

/**
 * Node's file functions for a write stream, telling `wrote` how many bytes each write put in the file
 * once it has (a stream writes one call at a time, so in order). The prescan then reads them from the
 * file (its page cache) in its own thread, and the event loop copies nothing for it.
 */
function reportingWrites(wrote: (bytes: number) => void) {
  type Done = (err: NodeJS.ErrnoException | null, written: number) => void;
  const reported =
    (cb: Done): Done =>
    (err, written) => {
      if (!err) wrote(written);
      cb(err, written);
    };
  return {
    open: fs.open,
    close: fs.close,
    write: (fd: number, buffer: Buffer, offset: number, length: number, position: number | null, cb: Done) =>
      fs.write(fd, buffer, offset, length, position, reported(cb)),
    writev: (fd: number, buffers: NodeJS.ArrayBufferView[], position: number | null, cb: Done) =>
      fs.writev(fd, buffers, position, reported(cb)),
  };
}

/**
 * Syncs a file being written, in the background: one fdatasync at a time through a descriptor of its
 * own, started each time SYNC_EVERY more bytes have passed, and a last one when the write ends. A
 * sync flushes what has been written by then; none of them is what makes the upload durable (keeping
 * the archive syncs it), they only spread that work over the upload.
 */
class WriteBehind {
  private handle: Promise<FileHandle> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private ended = false;
  private sincePrevious = 0;

  constructor(private readonly file: string) {}

  passed(bytes: number): void {
    this.sincePrevious += bytes;
    if (this.sincePrevious >= SYNC_EVERY) this.sync();
  }

  end(): void {
    this.ended = true;
    this.sync();
  }

  private sync(): void {
    this.sincePrevious = 0;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      this.handle ??= open(this.file, 'r');
      await (await this.handle).datasync();
    })()
      .catch(() => undefined)
      .then(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.sync();
        } else if (this.ended && this.handle) {
          const handle = this.handle;
          this.handle = undefined;
          void handle.then((fh) => fh.close()).catch(() => undefined);
        }
      });
  }
}

async function* uploadIds(root: string, prefix = ''): AsyncGenerator<string> {
  const entries = await readdir(path.join(root, prefix), { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) yield* uploadIds(root, rel);
    else if (entry.isFile() && entry.name.endsWith('.json')) yield rel.slice(0, -'.json'.length);
  }
}

async function readInfo(datastore: DataStore, id: string): Promise<UploadInfo | null> {
  try {
    const upload = await datastore.getUpload(id);
    return { id, size: upload.size, offset: upload.offset, metadata: upload.metadata ?? {} };
  } catch {
    return null;
  }
}

/** Up to `length` bytes of an object from `start`, in memory. */
async function readObjectRange(
  storage: ObjectStorage,
  key: string,
  start: number,
  length: number,
): Promise<Buffer> {
  if (length <= 0) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(key, { start, end: start + length - 1 }))
    chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Bytes `start`..`end - 1` of an object as a stream, for ZIPs that live in S3. */
function rangeStream(storage: ObjectStorage, key: string, start: number, end: number): Readable {
  const out = new PassThrough();
  storage
    .get(key, { start, end: end - 1 })
    .then((body) => {
      body.on('error', (err) => out.destroy(err));
      body.pipe(out);
    })
    .catch((err: Error) => out.destroy(err));
  return out;
}
