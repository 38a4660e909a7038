import { Readable } from 'node:stream';
import { S3Store, type MetadataValue } from '@tus/s3-store';
import { ERRORS, Upload, type KvStore } from '@tus/utils';

/** S3 user metadata on an upload's pending part: the number of the part its bytes will open. */
const NEXT_PART = 'tus-next-part';

/**
 * tus's S3 store, with every acknowledged byte in the bucket whichever node dies.
 *
 * S3 parts must be at least 5 MiB, so the bytes of a PATCH short of a part wait in a pending object
 * (`{id}.part`) until the next PATCH brings more. @tus/s3-store's `write` downloads that object to
 * the node's disk and *deletes it from the bucket* before the new bytes have arrived; a node killed
 * then (or a PATCH cut off then) loses bytes already acknowledged with 204, and a HEAD on any node
 * answers an offset that far back (issue 27: 0 where 4 MiB had been acknowledged).
 *
 * Here the pending object stays until what replaces it is in the bucket: a new pending object
 * overwrites it in one PUT (only once the request's full parts are stored), or it is deleted once
 * its bytes are in a stored part. Until that delete, a stale one must not count: each pending object
 * names the part number its bytes open, and it counts only while that part does not exist yet
 * (`currentPending`). The proof is apps/server/test/system/multi-node.test.ts, which kills a node
 * mid-chunk, and durable-s3-store.test.ts.
 */
export class DurableS3Store extends S3Store {
  /**
   * No upload metadata kept in process memory. @tus/s3-store caches each upload's `.info` record per
   * process, and a cached record outlives the upload when another node, or a sweep running beside
   * this request, removes it: the multipart upload is then gone, which the store reads as
   * *finished*, and a HEAD answers offset = size for an upload that no longer exists. Each read goes
   * to the bucket instead: one small GET per request.
   */
  constructor(options: ConstructorParameters<typeof S3Store>[0]) {
    super({ ...options, cache: options.cache ?? readThrough });
  }

  /**
   * @tus/s3-store answers *any* failure to read an upload's `.info` record as "not found": a slow or
   * failing bucket then tells the client (404) that its upload is gone, and it gives up on bytes that
   * are safely stored. Only a record that is not there is "not found" here; any other error stays an
   * error (500), which tus clients retry.
   */
  override async getUpload(id: string): Promise<Upload> {
    let metadata: MetadataValue;
    try {
      metadata = await this.getMetadata(id);
    } catch (err) {
      throw isNotFound(err) ? ERRORS.FILE_NOT_FOUND : err;
    }
    const { file } = metadata;
    let stored: number;
    try {
      stored = (await this.retrieveParts(id)).reduce((sum, part) => sum + (part.Size ?? 0), 0);
    } catch (err) {
      // The multipart upload is gone while its record is there: it was completed.
      if (isMissingUpload(err)) return new Upload({ ...file, offset: file.size ?? 0 });
      throw err;
    }
    return new Upload({ ...file, offset: stored + ((await this.getIncompletePartSize(id)) ?? 0) });
  }

  /** Per upload being written by this process: the part number the next part gets, and the full parts sent. */
  private readonly writing = new Map<
    string,
    { nextPart: number; parts: Array<Promise<string>>; replacedPending: boolean }
  >();

  override async write(src: Readable, id: string, offset: number): Promise<number> {
    const metadata = await this.getMetadata(id);
    const parts = await this.retrieveParts(id);
    const nextPart = (parts.at(-1)?.PartNumber ?? 0) + 1;
    const pending = await this.downloadIncompletePart(id);
    const requestedOffset = offset;
    let input = src;
    if (pending) {
      offset = requestedOffset - pending.size;
      const pendingBytes = pending.createReader({ cleanUpOnEnd: true });
      input = Readable.from(
        (async function* () {
          yield* pendingBytes;
          yield* src;
        })(),
      );
    }
    const state = { nextPart, parts: [] as Array<Promise<string>>, replacedPending: false };
    this.writing.set(id, state);
    let bytesUploaded: number;
    try {
      bytesUploaded = await this.uploadParts(metadata, input, nextPart, offset);
    } finally {
      this.writing.delete(id);
    }
    // Its bytes are in a stored part now (which already makes it stale; see currentPending).
    if (pending && !state.replacedPending) await this.deleteIncompletePart(id).catch(() => undefined);
    const newOffset = requestedOffset + bytesUploaded - (pending?.size ?? 0);
    if (metadata.file.size === newOffset) {
      await this.finishMultipartUpload(metadata, await this.retrieveParts(id));
      await this.completeMetadata(metadata.file);
      await this.clearCache(id);
    }
    return newOffset;
  }

  protected override uploadPart(
    metadata: MetadataValue,
    readStream: Parameters<S3Store['uploadPart']>[1],
    partNumber: number,
  ): Promise<string> {
    const sent = super.uploadPart(metadata, readStream, partNumber);
    const state = this.writing.get(metadata.file.id);
    if (state) {
      state.nextPart = Math.max(state.nextPart, partNumber + 1);
      state.parts.push(sent);
    }
    return sent;
  }

  protected override async uploadIncompletePart(
    id: string,
    readStream: Parameters<S3Store['uploadIncompletePart']>[1],
  ): Promise<string> {
    const state = this.writing.get(id);
    // The pending object this one replaces holds bytes that are also in this request's full parts:
    // it is overwritten only once those are stored (and not at all when one of them failed).
    if (state) await Promise.all(state.parts);
    const nextPart = state?.nextPart ?? ((await this.retrieveParts(id)).at(-1)?.PartNumber ?? 0) + 1;
    const data = await this.client.putObject({
      Bucket: this.bucket,
      Key: this.partKey(id, true),
      Body: readStream,
      Tagging: this.useCompleteTag('false'),
      Metadata: { [NEXT_PART]: String(nextPart) },
    });
    if (state) state.replacedPending = true;
    return data.ETag ?? '';
  }

  protected override async getIncompletePart(id: string): Promise<Readable | undefined> {
    try {
      const data = await this.client.getObject({ Bucket: this.bucket, Key: this.partKey(id, true) });
      if (await this.currentPending(id, data.Metadata)) return data.Body as Readable | undefined;
      (data.Body as Readable | undefined)?.destroy();
      return undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  protected override async getIncompletePartSize(id: string): Promise<number | undefined> {
    try {
      const data = await this.client.headObject({ Bucket: this.bucket, Key: this.partKey(id, true) });
      return (await this.currentPending(id, data.Metadata)) ? data.ContentLength : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Whether a pending object still holds bytes after the stored parts (not yet in one of them). */
  private async currentPending(id: string, metadata: Record<string, string> | undefined): Promise<boolean> {
    const next = metadata?.[NEXT_PART];
    // Written by @tus/s3-store itself, which deleted it before anything replaced it.
    if (next === undefined) return true;
    const parts = await this.retrieveParts(id);
    return Number(next) === (parts.at(-1)?.PartNumber ?? 0) + 1;
  }
}

/** Whether an S3 error is one of these codes (the SDK puts it in `name`, some stores in `Code`). */
function s3ErrorIs(err: unknown, codes: string[]): boolean {
  const { name, Code } = (err ?? {}) as { name?: unknown; Code?: unknown };
  return codes.some((c) => c === name || c === Code);
}

/** An object that is not there. */
const isNotFound = (err: unknown) => s3ErrorIs(err, ['NotFound', 'NoSuchKey']);
/** A multipart upload that is not there (`NotFound` left out: the SDK gives it to any bare 404). */
const isMissingUpload = (err: unknown) => s3ErrorIs(err, ['NoSuchKey', 'NoSuchUpload']);

const readThrough: KvStore<MetadataValue> = {
  get: async () => undefined,
  set: async () => undefined,
  delete: async () => undefined,
};
