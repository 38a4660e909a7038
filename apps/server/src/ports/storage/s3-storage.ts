import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type _Object,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import {
  assertSafeKey,
  assertValidRange,
  InvalidKeyError,
  isBodyParts,
  normalizePrefix,
  ObjectNotFoundError,
  RangeNotSatisfiableError,
  type ByteRange,
  type ObjectBody,
  type ObjectStat,
  type ObjectStorage,
  type PutOptions,
} from './storage';

export interface S3StorageConfig {
  /** For S3-compatible services (MinIO, R2, …); AWS when absent. */
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `https://host/bucket/key` instead of `https://bucket.host/key`; most non-AWS services need it. */
  forcePathStyle: boolean;
  /** Folder inside the bucket that holds every key of this store, e.g. `mi/`. */
  prefix?: string | undefined;
  /** Keys per ListObjectsV2 page and per DeleteObjects batch; S3's (and the default) maximum is 1000. */
  listPageSize?: number | undefined;
}

/** Parts of a multipart upload. S3's minimum is 5 MiB; bigger parts mean fewer requests per study file. */
export const S3_PART_SIZE = 8 * 1024 * 1024;
/** Parts uploaded in parallel. Memory per upload is bounded by about PART_SIZE × (QUEUE_SIZE + 1). */
export const S3_QUEUE_SIZE = 4;
const MAX_PAGE_SIZE = 1000;

export class S3ObjectStorage implements ObjectStorage {
  readonly kind = 's3' as const;
  /** Exposed for callers that need more than this port offers (presigned URLs) and for tests. */
  readonly client: S3Client;
  private readonly bucket: string;
  /** '' or a folder ending in '/', prepended to every key. */
  private readonly keyPrefix: string;
  private readonly pageSize: number;

  constructor(cfg: S3StorageConfig) {
    this.bucket = cfg.bucket;
    this.keyPrefix = normalizePrefix(cfg.prefix?.replace(/^\/+|\/+$/g, '') ?? '');
    this.pageSize = cfg.listPageSize ?? MAX_PAGE_SIZE;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > MAX_PAGE_SIZE)
      throw new RangeError(`listPageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    this.client = new S3Client({
      region: cfg.region,
      ...(cfg.endpoint ? { endpoint: cfg.endpoint } : {}),
      forcePathStyle: cfg.forcePathStyle,
      credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey },
      // Since v3.729 the SDK by default (WHEN_SUPPORTED) attaches CRC32 checksums to every upload
      // and, for streams of unknown length, switches to `aws-chunked` bodies with trailing checksums.
      // Several S3-compatible services (older MinIO and Ceph, some hosted ones) reject or mis-store
      // those. WHEN_REQUIRED only adds checksums where S3 demands one (DeleteObjects); bodies in
      // transit remain protected by TLS.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      // Only validate response checksums when asked to; ranged GETs cannot be validated anyway.
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, given: ObjectBody, opts: PutOptions = {}): Promise<ObjectStat> {
    // Parts are joined: S3 takes a body of known length as one request (or as parts it cuts itself).
    const body = isBodyParts(given) ? Buffer.concat(given) : given;
    let objectKey: string;
    try {
      objectKey = this.objectKey(key);
    } catch (err) {
      if (!Buffer.isBuffer(body)) body.destroy(); // we will never read it; release its producer
      throw err;
    }
    const safeKey = objectKey.slice(this.keyPrefix.length);

    let size: number;
    let payload: Readable | Buffer;
    let counter: ByteCounter | undefined;
    if (Buffer.isBuffer(body)) {
      if (opts.size !== undefined && opts.size !== body.length)
        throw new Error(`object body is ${body.length} bytes, expected ${opts.size}`);
      size = body.length;
      payload = body;
    } else {
      counter = new ByteCounter(opts.size);
      // pipeline, unlike pipe, carries an error or early close from either side to the other: a failed
      // source fails the upload, and an upload that stops reading releases the source. The callback
      // is a no-op because upload.done() reports the outcome.
      payload = pipeline(body, counter, () => {});
      size = 0;
    }

    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: objectKey,
        Body: payload,
        ...(opts.contentType ? { ContentType: opts.contentType } : {}),
      },
      partSize: S3_PART_SIZE,
      queueSize: S3_QUEUE_SIZE,
      // Abort (and so delete) uploaded parts when anything fails; S3 never shows an incomplete multipart object.
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      counter?.destroy();
      // lib-storage reports a failure of its own abort call in preference to the original error; the
      // body's error (e.g. the client hung up) is what callers need to see.
      throw counter?.failure ?? err;
    }
    if (counter) size = counter.bytes;
    // S3 does not return Last-Modified from PutObject/CompleteMultipartUpload; a HEAD per upload would
    // double the request count, so report our clock. stat() returns the server's value.
    return { key: safeKey, size, lastModified: new Date() };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const objectKey = this.objectKey(key);
    const safeKey = objectKey.slice(this.keyPrefix.length);
    if (range) assertValidRange(range);
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          ...(range ? { Range: `bytes=${range.start}-${range.end ?? ''}` } : {}),
        }),
      );
      if (!(res.Body instanceof Readable)) throw new Error('S3 GetObject returned no readable body');
      if (range) {
        try {
          checkContentRange(res.ContentRange, range);
        } catch (err) {
          res.Body.destroy();
          throw err;
        }
      }
      return res.Body;
    } catch (err) {
      if (isS3Error(err, 'NoSuchKey')) throw new ObjectNotFoundError(safeKey);
      if (range && isS3Error(err, 'InvalidRange')) throw new RangeNotSatisfiableError(safeKey, range);
      throw err;
    }
  }

  async persist(keys: readonly string[]): Promise<void> {
    // S3 acknowledges a put only once the object is stored durably.
    for (const key of keys) this.objectKey(key);
  }

  async stat(key: string): Promise<ObjectStat | null> {
    const objectKey = this.objectKey(key);
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return {
        key: objectKey.slice(this.keyPrefix.length),
        size: res.ContentLength ?? 0,
        lastModified: res.LastModified ?? new Date(0),
      };
    } catch (err) {
      // HEAD responses have no body, so the SDK can only name the error after the status code.
      if (isS3Error(err, 'NotFound') || isS3Error(err, 'NoSuchKey')) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for missing keys too, which is the idempotence we promise.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    const objectKeys = [...new Set(keys.map((k) => this.objectKey(k)))];
    for (let i = 0; i < objectKeys.length; i += this.pageSize) {
      const batch = objectKeys.slice(i, i + this.pageSize).map((Key) => ({ Key }));
      const res = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch, Quiet: true } }),
      );
      const [first] = res.Errors ?? [];
      if (first) {
        throw new Error(
          `S3 could not delete ${res.Errors?.length} of ${batch.length} objects, ` +
            `first ${first.Key ?? '?'}: ${first.Code ?? '?'} ${first.Message ?? ''}`,
        );
      }
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    const safePrefix = normalizePrefix(prefix);
    if (safePrefix === '')
      throw new InvalidKeyError('refusing to delete every object: the prefix must not be empty');
    let deleted = 0;
    // Deleting page by page is safe: each continuation token resumes after the last key listed, not
    // at an offset, so removing listed keys does not skip any.
    for await (const page of this.pages(this.keyPrefix + safePrefix)) {
      const keys = page.flatMap((o) => (o.Key === undefined ? [] : [{ Key: o.Key }]));
      if (keys.length === 0) continue;
      const res = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }),
      );
      const [first] = res.Errors ?? [];
      if (first) {
        throw new Error(
          `S3 could not delete ${res.Errors?.length} of ${keys.length} objects under ${safePrefix}, ` +
            `first ${first.Key ?? '?'}: ${first.Code ?? '?'} ${first.Message ?? ''}`,
        );
      }
      deleted += keys.filter((k) => !k.Key.endsWith('/')).length;
    }
    return deleted;
  }

  list(prefix: string): AsyncIterable<ObjectStat> {
    // Validated eagerly so a bad prefix throws at the call, before any I/O.
    const fullPrefix = this.keyPrefix + normalizePrefix(prefix);
    return this.listUnder(fullPrefix);
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  /** Closes the client's pooled connections; call on shutdown. */
  destroy(): void {
    this.client.destroy();
  }

  // --- internals ---

  private objectKey(key: string): string {
    return this.keyPrefix + assertSafeKey(key);
  }

  private async *listUnder(fullPrefix: string): AsyncGenerator<ObjectStat> {
    for await (const page of this.pages(fullPrefix)) {
      for (const o of page) {
        // Zero-byte `folder/` markers made by consoles are not objects.
        if (o.Key === undefined || o.Key.endsWith('/')) continue;
        // S3 returns keys in UTF-8 byte order, which is the order this port promises.
        yield {
          key: o.Key.slice(this.keyPrefix.length),
          size: o.Size ?? 0,
          lastModified: o.LastModified ?? new Date(0),
        };
      }
    }
  }

  private async *pages(fullPrefix: string): AsyncGenerator<_Object[]> {
    let token: string | undefined;
    do {
      const res = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: fullPrefix,
          MaxKeys: this.pageSize,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      yield (res.Contents ?? []).filter((o) => o.Key?.startsWith(fullPrefix));
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }
}

/** Counts bytes on their way to the uploader and enforces the announced size. */
class ByteCounter extends Transform {
  bytes = 0;
  /** First error seen on this stream, kept because lib-storage may replace it with its own. */
  failure: Error | undefined;

  constructor(private readonly expected: number | undefined) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.expected !== undefined && this.bytes > this.expected)
      return cb(new Error(`object body is at least ${this.bytes} bytes, expected ${this.expected}`));
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    // Failing here, before the stream ends, makes the upload abort instead of completing a short object.
    if (this.expected !== undefined && this.bytes !== this.expected)
      return cb(new Error(`object body is ${this.bytes} bytes, expected ${this.expected}`));
    cb();
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    this.failure ??= err ?? undefined;
    cb(err);
  }
}

/**
 * Refuses a ranged response that is not the range asked for. S3 gets this right, but some compatible
 * servers ignore Range (200 with the whole object) or parts of it, and serving those bytes as a 206
 * would silently corrupt what the viewer decodes.
 */
function checkContentRange(header: string | undefined, range: ByteRange): void {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header ?? '');
  const start = Number(m?.[1]);
  const end = Number(m?.[2]);
  const total = m?.[3] === '*' || m?.[3] === undefined ? Infinity : Number(m[3]);
  const expectedEnd = Math.min(range.end ?? Infinity, total - 1);
  if (!m || start !== range.start || end !== expectedEnd)
    throw new Error(
      `S3 returned range "${header ?? 'none'}" for requested bytes=${range.start}-${range.end ?? ''}`,
    );
}

/** By name rather than class: unmodelled errors (NotFound on HEAD, InvalidRange) have no class of their own. */
function isS3Error(err: unknown, name: string): boolean {
  return err instanceof Error && err.name === name;
}
