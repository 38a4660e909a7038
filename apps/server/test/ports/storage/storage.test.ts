import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertSafeKey,
  compareKeys,
  createObjectStorage,
  FsObjectStorage,
  InvalidKeyError,
  ObjectNotFoundError,
  RangeNotSatisfiableError,
  S3ObjectStorage,
  type ObjectStat,
  type ObjectStorage,
} from '../../../src/ports/storage/index';
import { putBatch } from '../../../src/ports/storage/put-batch';
import { startS3rver as startLocalS3, type LocalS3 } from '../../helpers/s3rver';

const MiB = 1024 * 1024;
const BUCKET = 'mi-test';

const startS3rver = (directory: string) => startLocalS3({ directory, bucket: BUCKET });

interface Harness {
  storage: ObjectStorage;
  /** The same store, listing/deleting in pages of 2 where the backend pages (S3); else `storage`. */
  paged: ObjectStorage;
  /**
   * A store that cannot succeed at I/O: an fs root that does not exist (a write would create it, a
   * read would answer "not found"), or an S3 endpoint that refuses connections. `ioHappened()` tells.
   */
  offline: ObjectStorage;
  ioHappened(): boolean;
  /** A store whose check() must fail. */
  broken: ObjectStorage;
  /** S3 only: names of the commands sent by `storage` / `paged`, in order. */
  commands?: string[];
  pagedCommands?: string[];
  close(): Promise<void>;
}

/** Records every command an SDK client sends, through its own middleware stack (nothing is mocked). */
function recordCommands(client: S3Client): string[] {
  const seen: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      seen.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name: 'recordCommandsForTest' },
  );
  return seen;
}

const adapters: { name: 'fs' | 's3'; setup(): Promise<Harness> }[] = [
  {
    name: 'fs',
    async setup() {
      const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'mi-storage-fs-'));
      const storage = new FsObjectStorage(path.join(tmp, 'root'));
      const offlineRoot = path.join(tmp, 'never-created');
      const notADir = path.join(tmp, 'a-file');
      await fsp.writeFile(notADir, '');
      return {
        storage,
        paged: storage,
        offline: new FsObjectStorage(offlineRoot),
        ioHappened: () => existsSync(offlineRoot),
        broken: new FsObjectStorage(path.join(notADir, 'root')),
        close: () => fsp.rm(tmp, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 's3',
    async setup() {
      const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'mi-storage-s3-'));
      const server = await startS3rver(tmp).catch(async (err: unknown) => {
        await fsp.rm(tmp, { recursive: true, force: true });
        throw err;
      });
      const base = {
        endpoint: server.endpoint,
        region: 'us-east-1',
        bucket: BUCKET,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
        prefix: 'mi/',
      };
      const storage = new S3ObjectStorage(base);
      const paged = new S3ObjectStorage({ ...base, listPageSize: 2 });
      // Port 1 refuses connections, and the recorder sees any attempt before the network does.
      const offline = new S3ObjectStorage({ ...base, endpoint: 'http://127.0.0.1:1' });
      const offlineCommands = recordCommands(offline.client);
      const broken = new S3ObjectStorage({ ...base, bucket: 'no-such-bucket' });
      return {
        storage,
        paged,
        offline,
        ioHappened: () => offlineCommands.length > 0,
        broken,
        commands: recordCommands(storage.client),
        pagedCommands: recordCommands(paged.client),
        async close() {
          for (const s of [storage, paged, offline, broken]) s.destroy();
          await server.stop();
          await fsp.rm(tmp, { recursive: true, force: true });
        },
      };
    },
  },
];

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

async function collect(iterable: AsyncIterable<ObjectStat>): Promise<ObjectStat[]> {
  const out: ObjectStat[] = [];
  for await (const stat of iterable) out.push(stat);
  return out;
}

const keysOf = async (iterable: AsyncIterable<ObjectStat>) => (await collect(iterable)).map((s) => s.key);
const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

/** A real stream (not a Buffer) over `data`, in chunks of `chunkSize`. */
function streamOf(data: Buffer, chunkSize = 64 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= data.length) return void this.push(null);
      this.push(data.subarray(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

/** Sends `goodBytes` bytes, then fails like a client that hung up mid-upload. */
function failingStream(goodBytes: number, message = 'client went away'): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= goodBytes) return void this.destroy(new Error(message));
      const n = Math.min(64 * 1024, goodBytes - sent);
      sent += n;
      this.push(Buffer.alloc(n, 0x5a));
    },
  });
}

// Keys that must never reach the disk or the network.
const BAD_KEYS = [
  '../x',
  'a/../../x',
  '/etc/passwd',
  'a\\..\\b',
  'a/./b',
  '',
  'a\u0000b',
  '..',
  '.',
  'a//b',
  'a/',
  'tab\there',
  'x'.repeat(1025),
];
// Prefixes are keys with an optional trailing '/', so '' and 'a/' are fine for list.
const BAD_PREFIXES = BAD_KEYS.filter((k) => k !== '' && k !== 'a/');

let counter = 0;
/** A folder no other test uses. */
const fresh = () => `t${++counter}`;

describe.each(adapters)('ObjectStorage: $name', ({ name, setup }) => {
  let h: Harness;
  let storage: ObjectStorage;
  beforeAll(async () => {
    h = await setup();
    storage = h.storage;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reports its kind', () => {
    expect(storage.kind).toBe(name);
  });

  it('round-trips a Buffer', async () => {
    const key = `${fresh()}/study/1.dcm`;
    const data = randomBytes(4096);
    const stat = await storage.put(key, data, { contentType: 'application/dicom', size: data.length });
    expect(stat).toMatchObject({ key, size: data.length });
    expect(stat.lastModified).toBeInstanceOf(Date);
    expect(await readAll(await storage.get(key))).toEqual(data);
  });

  it('round-trips a stream and an empty object', async () => {
    const p = fresh();
    const data = randomBytes(300 * 1024 + 7);
    expect(await storage.put(`${p}/s.bin`, streamOf(data, 10_000))).toMatchObject({ size: data.length });
    expect(await readAll(await storage.get(`${p}/s.bin`))).toEqual(data);

    expect(await storage.put(`${p}/empty`, Readable.from([]))).toMatchObject({ size: 0 });
    expect((await readAll(await storage.get(`${p}/empty`))).length).toBe(0);
    expect(await storage.stat(`${p}/empty`)).toMatchObject({ size: 0 });
  });

  it('replaces an existing object', async () => {
    const key = `${fresh()}/k`;
    await storage.put(key, Buffer.from('first version'));
    await storage.put(key, Buffer.from('second'));
    expect((await readAll(await storage.get(key))).toString()).toBe('second');
    expect(await storage.stat(key)).toMatchObject({ size: 6 });
  });

  describe('large streamed object (> 16 MiB)', () => {
    const data = randomBytes(17 * MiB + 123);
    const key = `${fresh()}/big.bin`;

    // The tests below read the object this one writes.
    it('uploads it as a stream, in 8 MiB parts on S3', async () => {
      const before = h.commands?.length ?? 0;
      const stat = await storage.put(key, streamOf(data));
      expect(stat).toMatchObject({ key, size: data.length });
      if (h.commands) {
        // 8 + 8 + 1 MiB. A single PutObject would mean the whole body had been buffered.
        expect(h.commands.slice(before)).toEqual([
          'CreateMultipartUpload',
          'UploadPart',
          'UploadPart',
          'UploadPart',
          'CompleteMultipartUpload',
        ]);
      }
    });

    it('stores every byte', async () => {
      const back = await readAll(await storage.get(key));
      expect(back.length).toBe(data.length);
      expect(sha256(back)).toBe(sha256(data));
      expect(await storage.stat(key)).toMatchObject({ key, size: data.length });
    });

    it('serves ranges across part boundaries', async () => {
      const start = 8 * MiB - 100;
      const end = 16 * MiB + 100;
      const slice = await readAll(await storage.get(key, { start, end }));
      expect(sha256(slice)).toBe(sha256(data.subarray(start, end + 1)));
      const tail = await readAll(await storage.get(key, { start: data.length - 5 }));
      expect(tail).toEqual(data.subarray(data.length - 5));
    });
  });

  it('reads a whole object of up to 1 MiB in one chunk, and larger ones in pieces', async () => {
    const p = fresh();
    const chunksOf = async (key: string) => {
      const chunks: Buffer[] = [];
      for await (const c of await storage.get(key)) chunks.push(c as Buffer);
      return chunks;
    };
    for (const size of [MiB, MiB + 1]) {
      const data = randomBytes(size);
      await storage.put(`${p}/${size}.bin`, data);
      const chunks = await chunksOf(`${p}/${size}.bin`);
      expect(Buffer.concat(chunks)).toEqual(data);
      // S3's chunking is the HTTP client's; one read per file is what the local disk promises.
      if (name === 'fs') expect(chunks.length === 1).toBe(size <= MiB);
    }
  });

  it('round-trips an object given as parts, and stores nothing when they miss the announced size', async () => {
    const p = fresh();
    const source = randomBytes(300 * 1024);
    const parts = [
      randomBytes(333),
      new Uint8Array(0),
      source.subarray(7, 200_007),
      source.subarray(250_000),
    ];
    const whole = Buffer.concat(parts);
    expect(await storage.put(`${p}/parts.bin`, parts, { size: whole.length })).toMatchObject({
      size: whole.length,
    });
    expect(await readAll(await storage.get(`${p}/parts.bin`))).toEqual(whole);
    expect(await storage.put(`${p}/none.bin`, [])).toMatchObject({ size: 0 });
    expect(await storage.stat(`${p}/none.bin`)).toMatchObject({ size: 0 });
    await expect(storage.put(`${p}/long.bin`, parts, { size: whole.length - 1 })).rejects.toThrow(/expected/);
    expect(await storage.stat(`${p}/long.bin`)).toBeNull();
  });

  it('putBatch stores objects given whole or as parts (views into other buffers)', async () => {
    const p = fresh();
    const head = randomBytes(1000);
    const source = randomBytes(600 * 1024);
    const pixels = source.subarray(24);
    await putBatch(storage, [
      { key: `${p}/parts.dcm`, parts: [head, pixels], size: head.length + pixels.length },
      { key: `${p}/whole.dcm`, bytes: head },
      { key: `${p}/one-part.dcm`, parts: [pixels], size: pixels.length },
    ]);
    expect(await readAll(await storage.get(`${p}/parts.dcm`))).toEqual(Buffer.concat([head, pixels]));
    expect(await readAll(await storage.get(`${p}/whole.dcm`))).toEqual(head);
    expect(await readAll(await storage.get(`${p}/one-part.dcm`))).toEqual(pixels);
    // Parts that do not add up to the announced size store nothing.
    await expect(
      putBatch(storage, [{ key: `${p}/short.dcm`, parts: [head], size: head.length + 1 }]),
    ).rejects.toThrow(/expected/);
    expect(await storage.stat(`${p}/short.dcm`)).toBeNull();
  });

  describe('ranged reads', () => {
    const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    let key: string;
    beforeAll(async () => {
      key = `${fresh()}/ranged.bin`;
      await storage.put(key, data);
    });

    it('reads from a start offset to the end', async () => {
      expect(await readAll(await storage.get(key, { start: 10 }))).toEqual(data.subarray(10));
    });

    it('reads an inclusive start-end range', async () => {
      expect(await readAll(await storage.get(key, { start: 10, end: 19 }))).toEqual(data.subarray(10, 20));
    });

    it('reads only the last byte', async () => {
      expect(await readAll(await storage.get(key, { start: 999, end: 999 }))).toEqual(data.subarray(999));
    });

    it('clamps an end past the last byte', async () => {
      expect(await readAll(await storage.get(key, { start: 990, end: 5000 }))).toEqual(data.subarray(990));
    });

    it('rejects a start at or past the end as not satisfiable', async () => {
      await expect(storage.get(key, { start: 1000 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
      await expect(storage.get(key, { start: 5000, end: 6000 })).rejects.toBeInstanceOf(
        RangeNotSatisfiableError,
      );
    });

    it('rejects malformed ranges before any I/O', async () => {
      for (const range of [{ start: -1 }, { start: 5, end: 4 }, { start: 1.5 }, { start: Number.NaN }]) {
        await expect(h.offline.get('a/b', range)).rejects.toBeInstanceOf(RangeError);
      }
      expect(h.ioHappened()).toBe(false);
    });

    it('reports a missing key even with a range', async () => {
      await expect(storage.get(`${fresh()}/nope`, { start: 0 })).rejects.toBeInstanceOf(ObjectNotFoundError);
    });
  });

  it('stats present and missing keys', async () => {
    const key = `${fresh()}/a/b.dcm`;
    expect(await storage.stat(key)).toBeNull();
    await storage.put(key, Buffer.from('hello'));
    const stat = await storage.stat(key);
    expect(stat).toMatchObject({ key, size: 5 });
    expect(stat?.lastModified).toBeInstanceOf(Date);
    expect(Math.abs((stat?.lastModified.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
    // A folder is not an object.
    expect(await storage.stat(key.slice(0, key.lastIndexOf('/')))).toBeNull();
  });

  it('throws ObjectNotFoundError for a missing key', async () => {
    const key = `${fresh()}/missing.dcm`;
    const err: unknown = await storage.get(key).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObjectNotFoundError);
    expect((err as ObjectNotFoundError).key).toBe(key);
  });

  it('deletes idempotently', async () => {
    const key = `${fresh()}/x/y.dcm`;
    await storage.delete(key); // never existed
    await storage.put(key, Buffer.from('x'));
    await storage.delete(key);
    await storage.delete(key);
    expect(await storage.stat(key)).toBeNull();
    await expect(storage.get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('makes deferred puts durable with persist', async () => {
    const p = fresh();
    const keys = [`${p}/s/1.dcm`, `${p}/s/2.dcm`, `${p}/t/3.dcm`];
    for (const key of keys) await storage.put(key, Buffer.from(key), { deferDurability: true });
    for (const key of keys) expect((await readAll(await storage.get(key))).toString()).toBe(key);
    await storage.persist(keys);
    await storage.persist([`${fresh()}/never/x.dcm`]);
    await expect(storage.persist(['../escape'])).rejects.toBeInstanceOf(InvalidKeyError);
  });

  it('deletes many keys in batches, idempotently, validating every key first', async () => {
    const p = fresh();
    const keys = ['a/1', 'a/2', 'b/3', 'c/4', 'c/5'].map((k) => `${p}/${k}`);
    for (const key of keys) await h.paged.put(key, Buffer.from(key));
    await expect(h.paged.deleteMany([keys[0]!, '../escape'])).rejects.toBeInstanceOf(InvalidKeyError);
    expect(await keysOf(storage.list(p))).toEqual(keys);

    const before = h.pagedCommands?.length ?? 0;
    // A duplicate and a key that never existed are fine.
    await h.paged.deleteMany([keys[0]!, keys[1]!, keys[0]!, keys[2]!, keys[3]!, `${p}/never`]);
    expect(await keysOf(storage.list(p))).toEqual([keys[4]]);
    if (h.pagedCommands) {
      // Five distinct keys in batches of 2: three DeleteObjects requests and nothing else.
      expect(h.pagedCommands.slice(before)).toEqual(['DeleteObjects', 'DeleteObjects', 'DeleteObjects']);
    }
    await storage.deleteMany([keys[4]!]);
    await storage.deleteMany([]);
    expect(await keysOf(storage.list(p))).toEqual([]);
  });

  it('lists a folder sorted by key without leaking sibling folders', async () => {
    const p = fresh();
    // Written out of order. Note: s3rver only orders keys correctly when no key sorts between a folder
    // and its sibling files by a character below '/', so the tricky cases are in the fs-only tests.
    const keys = [
      `${p}/a/bc/1`,
      `${p}/a/b/2`,
      `${p}/z`,
      `${p}/a/b/sub/x`,
      `${p}/a/b/10`,
      `${p}/a/b/1`,
      `${p}/a/bz`,
    ];
    for (const [i, key] of keys.entries()) await storage.put(key, Buffer.alloc(i + 1));

    const underB = [`${p}/a/b/1`, `${p}/a/b/10`, `${p}/a/b/2`, `${p}/a/b/sub/x`];
    expect(await keysOf(storage.list(`${p}/a/b`))).toEqual(underB);
    expect(await keysOf(storage.list(`${p}/a/b/`))).toEqual(underB);
    expect(await keysOf(storage.list(`${p}/a`))).toEqual([...underB, `${p}/a/bc/1`, `${p}/a/bz`]);
    expect(await keysOf(storage.list(`${p}/a/bc`))).toEqual([`${p}/a/bc/1`]);
    expect(await keysOf(storage.list(`${p}/a/b/1`))).toEqual([]); // an object is not a folder
    expect(await keysOf(storage.list(`${fresh()}/nothing`))).toEqual([]);

    const stats = await collect(storage.list(p));
    expect(stats.map((s) => s.key)).toEqual([...underB, `${p}/a/bc/1`, `${p}/a/bz`, `${p}/z`]);
    for (const s of stats) {
      expect(s.size).toBe(keys.indexOf(s.key) + 1);
      expect(s.lastModified).toBeInstanceOf(Date);
    }

    const all = await keysOf(storage.list(''));
    expect(all).toEqual(expect.arrayContaining(keys));
    expect(all).toEqual([...all].sort(compareKeys));
  });

  it('deletes a folder, and only that folder', async () => {
    const p = fresh();
    for (const key of [`${p}/a/b/1`, `${p}/a/b/2`, `${p}/a/b/sub/x`, `${p}/a/bc/1`, `${p}/a/b2`])
      await storage.put(key, Buffer.from(key));

    expect(await storage.deletePrefix(`${p}/a/b`)).toBe(3);
    expect(await keysOf(storage.list(p))).toEqual([`${p}/a/b2`, `${p}/a/bc/1`]);
    expect(await storage.stat(`${p}/a/b/1`)).toBeNull();
    expect(await storage.deletePrefix(`${p}/a/b/`)).toBe(0);
    expect(await storage.deletePrefix(`${fresh()}/never`)).toBe(0);
    await expect(storage.deletePrefix('')).rejects.toBeInstanceOf(InvalidKeyError);
    expect(await storage.deletePrefix(`${p}/`)).toBe(2);
    expect(await keysOf(storage.list(p))).toEqual([]);
  });

  it('lists and deletes across pages', async () => {
    const p = fresh();
    const keys = ['e', 'a', 'd', 'b', 'c'].map((k) => `${p}/${k}`);
    for (const key of keys) await h.paged.put(key, Buffer.from(key));
    const before = h.pagedCommands?.length ?? 0;

    expect(await keysOf(h.paged.list(p))).toEqual([...keys].sort(compareKeys));
    expect(await h.paged.deletePrefix(p)).toBe(5);
    expect(await keysOf(storage.list(p))).toEqual([]);

    if (h.pagedCommands) {
      const sent = h.pagedCommands.slice(before);
      // 5 keys in pages of 2: three list pages each time, three delete batches.
      expect(sent.filter((c) => c === 'ListObjectsV2').length).toBe(6);
      expect(sent.filter((c) => c === 'DeleteObjects').length).toBe(3);
    }
  });

  it('rejects keys and prefixes that could leave the store, before any I/O', async () => {
    const { offline } = h;
    for (const key of BAD_KEYS) {
      const body = Readable.from([Buffer.from('x')]);
      await expect(offline.put(key, body), `put ${JSON.stringify(key)}`).rejects.toBeInstanceOf(
        InvalidKeyError,
      );
      expect(body.destroyed).toBe(true);
      await expect(offline.put(key, Buffer.from('x'))).rejects.toBeInstanceOf(InvalidKeyError);
      await expect(offline.get(key), `get ${JSON.stringify(key)}`).rejects.toBeInstanceOf(InvalidKeyError);
      await expect(offline.get(key, { start: 0 })).rejects.toBeInstanceOf(InvalidKeyError);
      await expect(offline.stat(key), `stat ${JSON.stringify(key)}`).rejects.toBeInstanceOf(InvalidKeyError);
      await expect(offline.delete(key), `delete ${JSON.stringify(key)}`).rejects.toBeInstanceOf(
        InvalidKeyError,
      );
    }
    for (const prefix of BAD_PREFIXES) {
      expect(() => offline.list(prefix), `list ${JSON.stringify(prefix)}`).toThrow(InvalidKeyError);
      await expect(
        offline.deletePrefix(prefix),
        `deletePrefix ${JSON.stringify(prefix)}`,
      ).rejects.toBeInstanceOf(InvalidKeyError);
    }
    await expect(offline.deletePrefix('')).rejects.toBeInstanceOf(InvalidKeyError);
    expect(h.ioHappened()).toBe(false);
  });

  it('accepts unusual but safe keys, normalising Unicode to NFC', async () => {
    const p = fresh();
    const odd = `${p}/..b/c d/ü+%20.dcm`;
    await storage.put(odd, Buffer.from('odd'));
    expect((await readAll(await storage.get(odd))).toString()).toBe('odd');

    const nfd = `${p}/caf\u0065\u0301`;
    const nfc = `${p}/caf\u00e9`;
    const stat = await storage.put(nfd, Buffer.from('coffee'));
    expect(stat.key).toBe(nfc);
    expect((await readAll(await storage.get(nfc))).toString()).toBe('coffee');
    expect(await keysOf(storage.list(p))).toEqual([odd, nfc].sort(compareKeys));
  });

  it('keeps the old object when a streamed put fails midway', async () => {
    const p = fresh();
    await storage.put(`${p}/existing`, Buffer.from('old content'));

    await expect(storage.put(`${p}/existing`, failingStream(1 * MiB))).rejects.toThrow('client went away');
    await expect(storage.put(`${p}/new`, failingStream(1 * MiB))).rejects.toThrow('client went away');

    expect((await readAll(await storage.get(`${p}/existing`))).toString()).toBe('old content');
    expect(await storage.stat(`${p}/new`)).toBeNull();
    expect(await keysOf(storage.list(p))).toEqual([`${p}/existing`]);
  });

  it('stores nothing when a stream fails after multipart upload has begun', async () => {
    const key = `${fresh()}/big-fail.bin`;
    const before = h.commands?.length ?? 0;
    await expect(storage.put(key, failingStream(10 * MiB, 'upload cut off'))).rejects.toThrow(
      'upload cut off',
    );
    expect(await storage.stat(key)).toBeNull();
    if (h.commands) {
      const sent = h.commands.slice(before);
      expect(sent).toContain('CreateMultipartUpload');
      expect(sent).not.toContain('CompleteMultipartUpload');
      // lib-storage aborts the upload so S3 drops the parts (s3rver itself does not implement abort).
      expect(sent).toContain('AbortMultipartUpload');
    }
  });

  it('enforces an announced size', async () => {
    const p = fresh();
    await expect(storage.put(`${p}/short`, streamOf(Buffer.alloc(100)), { size: 101 })).rejects.toThrow(
      /100 bytes/,
    );
    await expect(storage.put(`${p}/long`, streamOf(Buffer.alloc(100), 10), { size: 50 })).rejects.toThrow(
      /expected 50/,
    );
    await expect(storage.put(`${p}/buf`, Buffer.alloc(10), { size: 11 })).rejects.toThrow(/expected 11/);
    expect(await keysOf(storage.list(p))).toEqual([]);
  });

  it('passes check() when usable and fails it when not', async () => {
    await expect(storage.check()).resolves.toBeUndefined();
    await expect(h.broken.check()).rejects.toThrow();
  });
});

describe('FsObjectStorage specifics', () => {
  let tmp: string;
  let root: string;
  let storage: FsObjectStorage;
  beforeAll(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'mi-storage-fs-only-'));
    root = path.join(tmp, 'root');
    storage = new FsObjectStorage(root);
  });
  afterAll(async () => {
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  const stagingFiles = async () => fsp.readdir(path.join(root, '.staging')).catch(() => [] as string[]);

  it('never shows an object while it is being written, nor a temp file after a failure', async () => {
    const key = 'inflight/object.bin';
    const body = new PassThrough();
    const put = storage.put(key, body);
    body.write(Buffer.alloc(256 * 1024, 1));
    // Wait until the first bytes have reached the temp file.
    await expect.poll(async () => (await stagingFiles()).length).toBe(1);
    await expect
      .poll(async () => {
        const [tmpName] = await stagingFiles();
        return tmpName ? (await fsp.stat(path.join(root, '.staging', tmpName))).size : 0;
      })
      .toBeGreaterThan(0);

    expect(await storage.stat(key)).toBeNull();
    expect(await keysOf(storage.list(''))).toEqual([]);
    await expect(storage.get(key)).rejects.toBeInstanceOf(ObjectNotFoundError);

    body.destroy(new Error('connection reset'));
    await expect(put).rejects.toThrow('connection reset');
    expect(await stagingFiles()).toEqual([]);
    expect(await keysOf(storage.list(''))).toEqual([]);
    expect(existsSync(path.join(root, 'inflight'))).toBe(false);
  });

  it('sorts by full key (UTF-8 order), not by directory walk or UTF-16 order', async () => {
    const keys = ['o/a/x', 'o/a-b', 'o/a.b', 'o/a0', 'o/\u{1F600}', 'o/\uFFFD', 'o/Z'];
    for (const key of keys) await storage.put(key, Buffer.from('.'));
    // '-' (2d) < '.' (2e) < '/' (2f) < '0' (30); U+FFFD < U+1F600 even though its UTF-16 unit is larger.
    expect(await keysOf(storage.list('o'))).toEqual([
      'o/Z',
      'o/a-b',
      'o/a.b',
      'o/a/x',
      'o/a0',
      'o/\uFFFD',
      'o/\u{1F600}',
    ]);
    expect(await storage.deletePrefix('o')).toBe(keys.length);
  });

  it('prunes directories left empty by delete and deletePrefix', async () => {
    await storage.put('p/q/r/1', Buffer.from('1'));
    await storage.put('p/q/s/2', Buffer.from('2'));
    await storage.delete('p/q/r/1');
    expect(existsSync(path.join(root, 'p/q/r'))).toBe(false);
    expect(existsSync(path.join(root, 'p/q/s/2'))).toBe(true);
    expect(await storage.deletePrefix('p/q')).toBe(1);
    expect(existsSync(path.join(root, 'p'))).toBe(false);
    expect(existsSync(root)).toBe(true);
  });

  it('refuses a key that is both an object and a folder', async () => {
    await storage.put('c/leaf', Buffer.from('x'));
    await expect(storage.put('c/leaf/child', Buffer.from('y'))).rejects.toBeInstanceOf(InvalidKeyError);
    await storage.put('d/folder/child', Buffer.from('y'));
    await expect(storage.put('d/folder', Buffer.from('x'))).rejects.toBeInstanceOf(InvalidKeyError);
    expect(await stagingFiles()).toEqual([]);
    await storage.deletePrefix('c');
    await storage.deletePrefix('d');
  });

  it('makes its staging directory again when someone removed it', async () => {
    await storage.put('again/first.bin', Buffer.from('first'));
    await fsp.rm(path.join(root, '.staging'), { recursive: true });
    await storage.put('again/second.bin', [Buffer.from('sec'), Buffer.from('ond')]);
    expect((await readAll(await storage.get('again/second.bin'))).toString()).toBe('second');
    await storage.deletePrefix('again');
  });

  it('reserves its staging directory', async () => {
    await expect(storage.put('.staging/x', Buffer.from('x'))).rejects.toBeInstanceOf(InvalidKeyError);
    expect(() => storage.list('.staging')).toThrow(InvalidKeyError);
    await expect(storage.deletePrefix('.staging')).rejects.toBeInstanceOf(InvalidKeyError);
  });

  it('does not follow symlinks out of the root', async () => {
    const outside = path.join(tmp, 'outside');
    await fsp.mkdir(outside, { recursive: true });
    await fsp.writeFile(path.join(outside, 'secret'), 'top secret');
    await fsp.mkdir(root, { recursive: true });
    await fsp.symlink(outside, path.join(root, 'link'));
    await fsp.symlink(path.join(outside, 'secret'), path.join(root, 'evil'));

    await expect(storage.get('link/secret')).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.get('evil')).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.stat('link/secret')).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.put('link/planted', Buffer.from('x'))).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.put('link/deeper/planted', Buffer.from('x'))).rejects.toBeInstanceOf(
      InvalidKeyError,
    );
    await expect(storage.delete('link/secret')).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(storage.deletePrefix('link')).rejects.toBeInstanceOf(InvalidKeyError);
    await expect(keysOf(storage.list('link'))).rejects.toBeInstanceOf(InvalidKeyError);
    // Listing the whole store skips symlinks instead of walking through them.
    expect(await keysOf(storage.list(''))).toEqual([]);

    expect(await fsp.readdir(outside)).toEqual(['secret']);
    expect(await fsp.readFile(path.join(outside, 'secret'), 'utf8')).toBe('top secret');
    await fsp.rm(path.join(root, 'link'));
    await fsp.rm(path.join(root, 'evil'));
  });

  it('sweeps stale temp files left by a crash', async () => {
    const staging = path.join(root, '.staging');
    await fsp.mkdir(staging, { recursive: true });
    const stale = path.join(staging, 'crashed.tmp');
    await fsp.writeFile(stale, 'half');
    const old = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    await fsp.utimes(stale, old, old);
    await fsp.writeFile(path.join(staging, 'in-flight.tmp'), 'new');
    expect(await storage.sweepStaging()).toBe(1);
    expect(await stagingFiles()).toEqual(['in-flight.tmp']);
    await fsp.rm(path.join(staging, 'in-flight.tmp'));
  });
});

describe('S3ObjectStorage specifics', () => {
  let tmp: string;
  let server: LocalS3 | undefined;
  const stores: S3ObjectStorage[] = [];
  const make = (prefix?: string) => {
    const s = new S3ObjectStorage({
      endpoint: server?.endpoint ?? 'http://127.0.0.1:1',
      region: 'us-east-1',
      bucket: BUCKET,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
      prefix,
    });
    stores.push(s);
    return s;
  };
  beforeAll(async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'mi-storage-s3-only-'));
    server = await startS3rver(tmp);
  });
  afterAll(async () => {
    for (const s of stores) s.destroy();
    await server?.stop();
    await fsp.rm(tmp, { recursive: true, force: true });
  });

  it('keeps its keys under the configured bucket prefix', async () => {
    const tenant = make('/tenant-a/');
    const whole = make();
    await tenant.put('studies/1.dcm', Buffer.from('a'));
    await whole.put('studies/2.dcm', Buffer.from('b'));

    await expect(
      whole.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'tenant-a/studies/1.dcm' })),
    ).resolves.toMatchObject({ ContentLength: 1 });
    expect(await keysOf(tenant.list(''))).toEqual(['studies/1.dcm']);
    expect(await keysOf(whole.list(''))).toEqual(['studies/2.dcm', 'tenant-a/studies/1.dcm']);
    expect(await tenant.stat('studies/2.dcm')).toBeNull();
  });

  it('rejects an unsafe bucket prefix', () => {
    expect(() => make('../other')).toThrow(InvalidKeyError);
  });
});

describe('assertSafeKey', () => {
  it('returns valid keys, NFC-normalised', () => {
    expect(assertSafeKey('studies/1/2.dcm')).toBe('studies/1/2.dcm');
    expect(assertSafeKey('a/...')).toBe('a/...');
    expect(assertSafeKey('a/b..c/.hidden')).toBe('a/b..c/.hidden');
    expect(assertSafeKey('e\u0301')).toBe('\u00e9');
  });

  it('limits keys to 1024 UTF-8 bytes', () => {
    expect(assertSafeKey('x'.repeat(1024))).toHaveLength(1024);
    expect(() => assertSafeKey('x'.repeat(1025))).toThrow(InvalidKeyError);
    expect(() => assertSafeKey('é'.repeat(513))).toThrow(InvalidKeyError); // 1026 bytes in 513 characters
  });

  it.each(
    [...BAD_KEYS, 'a/\u007f', 'a/\u0085', 'lone\ud800surrogate'].map((key) => ({
      key,
      label: key.length > 40 ? `${key.length} × x` : key,
    })),
  )('rejects $label', ({ key }) => {
    expect(() => assertSafeKey(key)).toThrow(InvalidKeyError);
  });
});

describe('createObjectStorage', () => {
  it('uses the data directory unless S3 is configured', () => {
    const fs = createObjectStorage({ dataDir: path.join(os.tmpdir(), 'unused') });
    expect(fs.kind).toBe('fs');
    const s3 = createObjectStorage({
      dataDir: '/unused',
      s3: { bucket: 'b', region: 'us-east-1', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true },
    });
    expect(s3.kind).toBe('s3');
    (s3 as S3ObjectStorage).destroy();
  });
});
