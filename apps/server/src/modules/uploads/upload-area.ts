import { open, readdir, readFile, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import type { DataStore } from '@tus/utils';
import yauzl from 'yauzl';
import type { Config } from '../../config';
import type { ObjectStorage } from '../../ports/storage/storage';
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
  /** Idempotent. */
  remove(id: string): Promise<void>;
  /**
   * Removes uploads abandoned before `createdBefore`: unfinished ones always, finished ones only when
   * `isClaimed` says nobody asked for them to be processed. Returns how many were removed.
   */
  sweep(createdBefore: Date, isClaimed: (id: string) => Promise<boolean>): Promise<number>;
}

/** Byte ranges of one upload. */
export interface RangeReader {
  /** Up to `length` bytes from `start` (fewer at the end of the upload). */
  read(start: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

const ZIP_OPTIONS: yauzl.Options = {
  lazyEntries: true,
  autoClose: false,
  decodeStrings: false,
  validateEntrySizes: true,
  strictFileNames: false,
};

/** Abandoned uploads are removed after this long unless UPLOAD_EXPIRY_HOURS says otherwise. */
export const UPLOAD_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;

export function createUploadArea(config: Config, storage: ObjectStorage): UploadArea {
  const expiryMs = config.uploadExpiryMs;
  if (config.s3 && storage.kind === 's3') {
    const s3 = config.s3;
    const clientConfig = {
      region: s3.region,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      forcePathStyle: s3.forcePathStyle,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    } as const;
    const datastore = new S3Store({
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
        const reader = new StorageRangeReader(storage, id);
        return new Promise((resolve, reject) =>
          yauzl.fromRandomAccessReader(reader, size, ZIP_OPTIONS, (err, zip) =>
            err ? reject(err) : resolve(zip),
          ),
        );
      },
      async openRanges(id) {
        return {
          async read(start, length) {
            if (length <= 0) return Buffer.alloc(0);
            const chunks: Buffer[] = [];
            for await (const chunk of await storage.get(id, { start, end: start + length - 1 }))
              chunks.push(chunk as Buffer);
            return Buffer.concat(chunks);
          },
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
      // Unfinished uploads are open S3 multipart uploads. tus's own deleteExpired removes them but
      // leaves its in-process metadata cache behind, after which the upload reads as *finished*; so
      // list them here and go through remove(), which clears that cache. Finished, unclaimed archives
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
            if (!u.Key || !OBJECT_NAME.test(u.Key) || !u.Initiated || !(u.Initiated < createdBefore))
              continue;
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

  const directory = path.join(config.dataDir, 'uploads');
  const datastore = new FileStore({ directory, expirationPeriodInMilliseconds: expiryMs });
  const fileFor = (id: string) => {
    const file = path.resolve(directory, id);
    if (!file.startsWith(directory + path.sep)) throw new Error('upload id outside the upload directory');
    return file;
  };
  return {
    kind: 'fs',
    bucket: 'uploads',
    datastore,
    info: (id) => readInfo(datastore, id),
    async openZip(id) {
      const file = fileFor(id);
      return new Promise((resolve, reject) =>
        yauzl.open(file, ZIP_OPTIONS, (err, zip) => (err ? reject(err) : resolve(zip))),
      );
    },
    async openRanges(id) {
      const fh = await open(fileFor(id), 'r');
      return {
        async read(start, length) {
          const buffer = Buffer.allocUnsafe(Math.max(0, length));
          let filled = 0;
          while (filled < length) {
            const { bytesRead } = await fh.read(buffer, filled, length - filled, start + filled);
            if (bytesRead === 0) break;
            filled += bytesRead;
          }
          return buffer.subarray(0, filled);
        },
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

/** Random access to an object through ranged reads, for ZIPs that live in S3. */
class StorageRangeReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly storage: ObjectStorage,
    private readonly key: string,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number) {
    const out = new PassThrough();
    if (end <= start) {
      out.end();
      return out;
    }
    this.storage
      .get(this.key, { start, end: end - 1 })
      .then((body) => {
        body.on('error', (err) => out.destroy(err));
        body.pipe(out);
      })
      .catch((err: Error) => out.destroy(err));
    return out;
  }
}
