// The tus upload lock across API nodes (src/modules/uploads/upload-locker.ts): two "nodes" here are
// two connections pools and change feeds on one PostgreSQL database, as two processes would have.
import { MemoryLocker } from '@tus/server';
import type { Locker } from '@tus/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeFeed } from '../../../src/db/change-feed';
import { openDatabase, type Database } from '../../../src/db/client';
import { createUploadLocker } from '../../../src/modules/uploads';
import { createPostgresDatabase, dropPostgresDatabase } from '../../helpers/test-database';

const adminUrl = process.env.DATABASE_URL;

it('is tus’s in-memory locker on the embedded database (one process)', async () => {
  const database = await openDatabase({ inMemory: true });
  try {
    const feed = await database.openChangeFeed();
    expect(createUploadLocker(database, feed)).toBeInstanceOf(MemoryLocker);
    await feed.close();
  } finally {
    await database.close();
  }
});

describe.skipIf(!adminUrl)('on PostgreSQL, across processes', () => {
  let created: { name: string; url: string };
  const nodes: Array<{ database: Database; feed: ChangeFeed; locker: Locker }> = [];

  beforeAll(async () => {
    created = await createPostgresDatabase(adminUrl!, { prefix: 'mi_lock' });
    for (let i = 0; i < 2; i++) {
      const database = await openDatabase({ databaseUrl: created.url });
      const feed = await database.openChangeFeed();
      nodes.push({ database, feed, locker: createUploadLocker(database, feed, 2_000) });
    }
  });
  afterAll(async () => {
    for (const n of nodes) {
      await n.feed.close();
      await n.database.close();
    }
    if (created) await dropPostgresDatabase(adminUrl!, created.name);
  });

  it('lets one node hold an upload; the other asks it to let go, and gets the lock once it has', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const held = a.locker.newLock('user/one/study.zip');
    const askedToLetGo: string[] = [];
    await held.lock(new AbortController().signal, async () => {
      askedToLetGo.push('a');
      // The request on node a stops writing and lets go (as tus does when asked).
      await held.unlock();
    });
    const waiting = b.locker.newLock('user/one/study.zip');
    const started = Date.now();
    await waiting.lock(new AbortController().signal, async () => undefined);
    expect(askedToLetGo).toEqual(['a']);
    expect(Date.now() - started).toBeLessThan(2_000);
    // Another upload is not held up by it.
    const other = a.locker.newLock('user/two/study.zip');
    await other.lock(new AbortController().signal, async () => undefined);
    await other.unlock();
    await waiting.unlock();
  });

  it('makes a request wait while the holder keeps writing, and gives up at the timeout with tus’s lock timeout error', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const held = a.locker.newLock('user/three/study.zip');
    await held.lock(new AbortController().signal, async () => undefined);
    const started = Date.now();
    const refused = await b.locker
      .newLock('user/three/study.zip')
      .lock(new AbortController().signal, async () => undefined)
      .then(
        () => null,
        (err: { status_code?: number; body?: string }) => err,
      );
    expect(refused).toMatchObject({ status_code: 500, body: expect.stringMatching(/lock/) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    await held.unlock();
    // Freed: the other node takes it at once.
    const next = b.locker.newLock('user/three/study.zip');
    await next.lock(new AbortController().signal, async () => undefined);
    await next.unlock();
  });

  it('frees the lock of a node that dies (its connection ends)', async () => {
    const dying = await openDatabase({ databaseUrl: created.url });
    const feed = await dying.openChangeFeed();
    const lock = createUploadLocker(dying, feed, 2_000).newLock('user/four/study.zip');
    await lock.lock(new AbortController().signal, async () => undefined);
    await feed.close();
    await dying.close().catch(() => undefined);
    const b = nodes[1]!;
    const next = b.locker.newLock('user/four/study.zip');
    await next.lock(new AbortController().signal, async () => undefined);
    await next.unlock();
  });
});
