import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** Channels the database triggers notify (see migrations 0007_change_notifications and 0011_sharing). */
export const CHANNELS = {
  /** Payload: the owner id whose studies list changed. */
  studyList: 'study_list_changed',
  /** Payload: `s:<session id>`, `u:<user id>`, or `*` (everything). */
  auth: 'auth_changed',
  /** Payload: the user id whose Shared Studies list changed (a share to them added, moved or ended). */
  sharedList: 'shared_list_changed',
  /** Payload: a tus upload id whose lock another request waits for (modules/uploads/upload-locker.ts). */
  uploadLockWanted: 'upload_lock_wanted',
} as const;

/** How the listening connection shows up in pg_stat_activity. */
export const FEED_APPLICATION_NAME = 'mi-change-feed';

export interface ChangeHandlers {
  /** One notification, delivered after the change committed. */
  change(payload: string): void;
  /**
   * Notifications may have been missed (the listening connection was lost, or has just been
   * re-established): drop everything cached from the database.
   */
  gap(): void;
}

/**
 * Change notifications (PostgreSQL LISTEN/NOTIFY) for in-process caches. While `live` is false —
 * before the first LISTEN, or while the connection is being re-established — nothing may be served
 * from a cache, because a change could go unnoticed.
 */
export interface ChangeFeed {
  readonly live: boolean;
  subscribe(channel: string, handlers: ChangeHandlers): void;
  /** A mark to pass to `echo`, taken before the write whose notification is awaited. */
  mark(): number;
  /**
   * Resolves once this process has heard `payload` on `channel` after `mark` (at most `timeoutMs`;
   * at once while not live). A writer that awaits the echo of its change answers only after the
   * database has sent the notification to every listening process.
   */
  echo(channel: string, payload: string, mark: number, timeoutMs?: number): Promise<void>;
  /**
   * Resolves once every change committed before the call has been heard here (a round trip on the
   * listening connection, which delivers pending notifications before its answer). For code that
   * writes behind the caches' owners and reads through a cache right after.
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

function dispatcher(isLive: () => boolean) {
  const subscribers = new Map<string, ChangeHandlers[]>();
  // Sequence number of the last notification heard per channel and payload (bounded; oldest dropped).
  let seq = 0;
  const heard = new Map<string, number>();
  const waiters = new Map<string, Array<() => void>>();
  return {
    subscribers,
    subscribe(channel: string, handlers: ChangeHandlers) {
      const list = subscribers.get(channel) ?? [];
      list.push(handlers);
      subscribers.set(channel, list);
    },
    change(channel: string, payload: string) {
      const key = `${channel}\n${payload}`;
      heard.delete(key);
      heard.set(key, ++seq);
      if (heard.size > 10_000) heard.delete(heard.keys().next().value as string);
      for (const h of subscribers.get(channel) ?? []) h.change(payload);
      const list = waiters.get(key);
      if (list) {
        waiters.delete(key);
        for (const done of list) done();
      }
    },
    mark: () => seq,
    echo(channel: string, payload: string, mark: number, timeoutMs = 2_000): Promise<void> {
      const key = `${channel}\n${payload}`;
      if (!isLive() || (heard.get(key) ?? 0) > mark) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        const list = waiters.get(key) ?? [];
        list.push(() => {
          clearTimeout(timer);
          resolve();
        });
        waiters.set(key, list);
      });
    },
    gap() {
      for (const list of subscribers.values()) for (const h of list) h.gap();
      // Whoever waits for an echo that may never come stops waiting: caches were just dropped.
      const all = [...waiters.values()];
      waiters.clear();
      for (const list of all) for (const done of list) done();
    },
  };
}

/**
 * PGlite runs in this process and calls listeners before the notifying statement returns, so
 * nothing can be missed and a change is seen here before its writer continues.
 */
export async function pgliteChangeFeed(client: PGlite): Promise<ChangeFeed> {
  const d = dispatcher(() => true);
  const unlisten: Array<() => Promise<void>> = [];
  for (const channel of Object.values(CHANNELS)) {
    unlisten.push(await client.listen(channel, (payload) => d.change(channel, payload)));
  }
  return {
    live: true,
    subscribe: d.subscribe,
    mark: d.mark,
    echo: d.echo,
    settled: () => Promise.resolve(),
    async close() {
      for (const u of unlisten) await u().catch(() => undefined);
    },
  };
}

interface PgFeedOptions {
  /** How often the listening connection proves it is alive (a lost one is replaced). */
  heartbeatMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * One dedicated PostgreSQL connection per process LISTENs on every channel. When it fails (or a
 * heartbeat goes unanswered) the feed stops being live and tells every subscriber to drop its cache;
 * it reconnects with backoff, LISTENs again, then announces another gap (anything read meanwhile may
 * predate a missed change) and becomes live.
 */
export async function postgresChangeFeed(url: string, opts: PgFeedOptions = {}): Promise<ChangeFeed> {
  let live = false;
  const d = dispatcher(() => live);
  const heartbeatMs = opts.heartbeatMs ?? 5_000;
  let client: pg.Client | null = null;
  let closed = false;
  let retryMs = 1_000;
  let reconnectTimer: NodeJS.Timeout | null = null;

  function lost(which: pg.Client, err?: unknown) {
    if (client !== which) return;
    client = null;
    live = false;
    d.gap();
    if (!closed) opts.onError?.(err ?? new Error('listening connection closed'));
    which.removeAllListeners('notification');
    which.end().catch(() => undefined);
    if (closed) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect().catch(() => undefined);
    }, retryMs);
    reconnectTimer.unref();
    retryMs = Math.min(retryMs * 2, 5_000);
  }

  async function connect(): Promise<void> {
    const c = new pg.Client({
      connectionString: url,
      keepAlive: true,
      query_timeout: heartbeatMs * 2,
      application_name: FEED_APPLICATION_NAME,
    });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    c.on('notification', (msg) => {
      if (client === c) d.change(msg.channel, msg.payload ?? '');
    });
    client = c;
    try {
      await c.connect();
      for (const channel of Object.values(CHANNELS)) await c.query(`LISTEN ${channel}`);
    } catch (err) {
      lost(c, err);
      throw err;
    }
    if (client !== c) return;
    // Whatever was read before LISTEN took effect may be older than a change we never heard of.
    d.gap();
    live = true;
    retryMs = 1_000;
  }

  try {
    await connect();
  } catch (err) {
    // No feed without a first connection: stop the retry that `lost` scheduled.
    closed = true;
    if (reconnectTimer) clearTimeout(reconnectTimer);
    throw err;
  }
  const heartbeat = setInterval(() => {
    const c = client;
    if (!c || !live) return;
    c.query('select 1').catch((err: unknown) => lost(c, err));
  }, heartbeatMs);
  heartbeat.unref();

  return {
    get live() {
      return live;
    },
    subscribe: d.subscribe,
    mark: d.mark,
    echo: d.echo,
    async settled() {
      const c = client;
      if (!c || !live) return;
      await c.query('select 1').catch((err: unknown) => lost(c, err));
    },
    async close() {
      closed = true;
      live = false;
      clearInterval(heartbeat);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners('notification');
        await c.end().catch(() => undefined);
      }
    },
  };
}
