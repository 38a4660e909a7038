import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { S3Store } from '@tus/s3-store';
import { ERRORS, Upload } from '@tus/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableS3Store } from '../../../src/modules/uploads/durable-s3-store';
import { motoInstalled, startMotoS3, type LocalS3 } from '../../helpers/s3rver';

// The tus S3 store keeps every acknowledged byte in the bucket (modules/uploads/durable-s3-store.ts);
// the same with several nodes and a real SIGKILL: test/system/multi-node.test.ts.

const MiB = 1024 * 1024;

if (!motoInstalled())
  console.warn('durable-s3-store.test.ts skipped: moto_server is not installed (pip install "moto[server]")');

describe.skipIf(!motoInstalled())('DurableS3Store', () => {
  let s3: LocalS3;
  let client: S3Client;
  /** A store on the test bucket, or on another S3 endpoint (asked once, without the SDK's retries). */
  const storeOf = (Store: typeof S3Store, endpoint?: string) =>
    new Store({
      partSize: 16 * MiB,
      s3ClientConfig: {
        bucket: s3.bucket,
        endpoint: endpoint ?? s3.endpoint,
        ...(endpoint ? { maxAttempts: 1 } : {}),
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      },
    });

  beforeAll(async () => {
    s3 = await startMotoS3({ bucket: 'durable' });
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  }, 60_000);
  afterAll(async () => {
    client?.destroy();
    await s3?.stop();
  });

  const create = async (store: S3Store, size: number) => {
    const id = `${randomUUID()}/${randomUUID()}/study.zip`;
    await store.create(new Upload({ id, size, offset: 0 }));
    return id;
  };
  /** A PATCH body that delivers `bytes` and then breaks off, as a request whose node or client dies. */
  const cutOff = (bytes: Buffer) =>
    new Readable({
      read() {
        this.push(bytes);
        this.destroy(new Error('connection lost'));
      },
    });

  /** Acknowledges 1 MiB (short of a part, so it waits in the pending object), then cuts the next PATCH off. */
  async function interruptedSecondPatch(store: S3Store) {
    const data = randomBytes(8 * MiB);
    const id = await create(store, data.length);
    expect(await store.write(Readable.from([data.subarray(0, MiB)]), id, 0)).toBe(MiB);
    await expect(store.write(cutOff(data.subarray(MiB, MiB + MiB / 2)), id, MiB)).rejects.toThrow();
    return { id, data, offset: (await store.getUpload(id)).offset };
  }

  it('keeps the acknowledged bytes of the pending part when the next PATCH breaks off', async () => {
    const store = storeOf(DurableS3Store);
    const { id, data, offset } = await interruptedSecondPatch(store);
    expect(offset).toBe(MiB);
    // The upload goes on from there and ends byte for byte as sent.
    expect(await store.write(Readable.from([data.subarray(MiB)]), id, MiB)).toBe(data.length);
    const stored = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: id }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(data)).toBe(true);
  });

  it('(@tus/s3-store by itself loses them: the reason for the subclass)', async () => {
    const { offset } = await interruptedSecondPatch(storeOf(S3Store));
    expect(offset).toBe(0);
  });

  it('never answers from memory: an upload another node removed is gone here too, not finished', async () => {
    const here = storeOf(DurableS3Store);
    const id = await create(here, 8 * MiB);
    expect(await here.write(Readable.from([randomBytes(MiB)]), id, 0)).toBe(MiB);
    expect((await here.getUpload(id)).offset).toBe(MiB);
    // Another node (or a sweep beside this request) removes it: the multipart upload is aborted.
    await storeOf(DurableS3Store).remove(id);
    await expect(here.getUpload(id)).rejects.toBeTruthy();
  });

  it('(@tus/s3-store by itself answers from its cache that the removed upload is finished)', async () => {
    const here = storeOf(S3Store);
    const id = await create(here, 8 * MiB);
    await here.getUpload(id);
    await storeOf(S3Store).remove(id);
    // tus removes the `.info` record only after it aborted the upload; the cached copy still says it
    // exists, and a missing multipart upload means "completed" to the store.
    expect((await here.getUpload(id)).offset).toBe(8 * MiB);
  });

  it('answers a failing bucket with its error, not with "upload not found", so the client retries', async () => {
    const id = await create(storeOf(DurableS3Store), 8 * MiB);
    // A bucket that fails every request, as S3 does when it answers 500 InternalError.
    const failing = createServer((_req, res) =>
      res
        .writeHead(500, { 'content-type': 'application/xml' })
        .end('<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>'),
    );
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    try {
      const error = await storeOf(DurableS3Store, failingUrl)
        .getUpload(id)
        .catch((err: unknown) => err);
      expect(error).toMatchObject({ name: 'InternalError' });
      // @tus/s3-store by itself tells the client its upload is gone.
      await expect(storeOf(S3Store, failingUrl).getUpload(id)).rejects.toBe(ERRORS.FILE_NOT_FOUND);
      // Once the bucket answers again, so is the upload.
      expect(await storeOf(DurableS3Store).getUpload(id)).toMatchObject({ offset: 0, size: 8 * MiB });
    } finally {
      failing.close();
    }
  });

  it('ignores a pending object whose bytes are already in a stored part (a node that died before deleting it)', async () => {
    const store = storeOf(DurableS3Store);
    const data = randomBytes(8 * MiB);
    const id = await create(store, data.length);
    expect(await store.write(Readable.from([data.subarray(0, 3 * MiB)]), id, 0)).toBe(3 * MiB);
    // The pending 3 MiB and these 3 MiB become part 1; the pending object is then deleted.
    expect(await store.write(Readable.from([data.subarray(3 * MiB, 6 * MiB)]), id, 3 * MiB)).toBe(6 * MiB);
    // As if the node had died between storing part 1 and that delete.
    await client.send(
      new PutObjectCommand({
        Bucket: s3.bucket,
        Key: `${id}.part`,
        Body: data.subarray(0, 3 * MiB),
        Metadata: { 'tus-next-part': '1' },
      }),
    );
    expect((await storeOf(DurableS3Store).getUpload(id)).offset).toBe(6 * MiB);
    expect(await store.write(Readable.from([data.subarray(6 * MiB)]), id, 6 * MiB)).toBe(data.length);
    const stored = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: id }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(data)).toBe(true);
  });
});
