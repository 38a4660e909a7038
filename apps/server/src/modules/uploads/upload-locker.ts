import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryLocker } from '@tus/server';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/utils';
import { CHANNELS, type ChangeFeed } from '../../db/change-feed';

/** What the locker needs of the database (`Database` in db/client.ts). */
interface LockingDatabase {
  /** PostgreSQL only; absent on the embedded database. */
  tryAdvisoryLock?(key: string): Promise<(() => Promise<void>) | null>;
  sql: { executeSql(text: string, values?: unknown[]): Promise<unknown> };
}

/** How long a request waits for an upload another request is writing (tus's own default). */
const ACQUIRE_TIMEOUT_MS = 30_000;
const RETRY_MS = 50;

/**
 * tus locks an upload while one request changes it, so two PATCHes can never both write at the same
 * offset. With many API nodes on PostgreSQL the lock must hold across them: it is a PostgreSQL
 * advisory lock on a connection held while the request runs, freed by PostgreSQL if the node dies.
 * A waiting request asks the holder, on whichever node, to let go (NOTIFY upload_lock_wanted), as tus
 * expects of a lock: a client that retries after a dropped connection must not wait for the dead
 * request's timeout. The embedded database is one process: tus's in-memory locker.
 */
export function createUploadLocker(
  database: LockingDatabase,
  feed: ChangeFeed,
  timeoutMs = ACQUIRE_TIMEOUT_MS,
): Locker {
  const tryLock = database.tryAdvisoryLock?.bind(database);
  if (!tryLock) return new MemoryLocker({ acquireLockTimeout: timeoutMs });
  // The locks this node holds, with how to ask each one's request to stop.
  const held = new Map<string, RequestRelease>();
  feed.subscribe(CHANNELS.uploadLockWanted, {
    change: (id) => void held.get(id)?.(),
    gap: () => undefined,
  });

  return {
    newLock(id: string): Lock {
      let release: (() => Promise<void>) | null = null;
      return {
        async lock(signal, requestRelease) {
          const deadline = Date.now() + timeoutMs;
          for (let asked = false; ;) {
            release = await tryLock(`tus:${id}`);
            if (release) {
              held.set(id, requestRelease);
              return;
            }
            if (signal.aborted || Date.now() >= deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
            if (!asked) {
              await database.sql.executeSql('select pg_notify($1, $2)', [CHANNELS.uploadLockWanted, id]);
              asked = true;
            }
            await sleep(RETRY_MS);
          }
        },
        async unlock() {
          const done = release;
          if (!done) throw new Error('Releasing an unlocked lock!');
          release = null;
          held.delete(id);
          await done();
        },
      };
    },
  };
}
