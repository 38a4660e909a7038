import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema/index';
import { postgresChangeFeed, pgliteChangeFeed, type ChangeFeed } from './change-feed';
import { lockDataDir } from './data-dir-lock';
import { storableParams } from './storable-text';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

/** Raw SQL access for the job queue, which speaks SQL and not Drizzle. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  sql: SqlExecutor;
  migrate(): Promise<void>;
  /** Change notifications for caches (LISTEN on a connection of its own; PGlite: in process). */
  openChangeFeed(opts?: { onError?: (err: unknown) => void }): Promise<ChangeFeed>;
  /**
   * PostgreSQL only: takes the session advisory lock named `key` if it is free, on a connection held
   * until the returned release (or until this process dies: PostgreSQL then frees it). Null when
   * another session holds it. Locks that must hold across processes (modules/uploads/upload-locker.ts).
   */
  tryAdvisoryLock?(key: string): Promise<(() => Promise<void>) | null>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * PGlite only: the whole database as a data-directory image, which `openDatabase({ image })`
   * opens as a copy. Tests build one migrated, seeded database and start each test file from it.
   */
  image?(): Promise<Blob>;
}

// Source: src/db/client.ts → src/db/migrations. Bundle: dist/main.js → dist/migrations.
const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Opens PostgreSQL when a URL is given, otherwise the embedded PGlite under DATA_DIR/db (locked). */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir?: string;
  inMemory?: boolean;
  /** In-memory PGlite: start as a copy of this image (see Database.image). */
  image?: Blob;
}): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  return openPglite(opts);
}

async function openPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10, Client: StorableTextClient });
  // Without a listener, an idle client's network error would crash the process.
  pool.on('error', () => undefined);
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  // Held locks keep their connection, so they come from a pool of their own: a node with many
  // uploads in flight never starves the queries of the rest of the app.
  const lockPool = new pg.Pool({ connectionString: url, max: 50, idleTimeoutMillis: 10_000 });
  lockPool.on('error', () => undefined);
  const lockHolders = new Set<pg.PoolClient>();
  return {
    kind: 'postgres',
    db,
    async tryAdvisoryLock(key) {
      const client = await lockPool.connect();
      try {
        const res = await client.query<{ ok: boolean }>(
          'select pg_try_advisory_lock(hashtextextended($1, 0)) as ok',
          [key],
        );
        if (!res.rows[0]?.ok) {
          client.release();
          return null;
        }
      } catch (err) {
        client.release(true);
        throw err;
      }
      lockHolders.add(client);
      return async () => {
        if (!lockHolders.delete(client)) return;
        try {
          await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [key]);
          client.release();
        } catch {
          // A connection that cannot unlock is closed, which frees its locks.
          client.release(true);
        }
      };
    },
    sql: {
      async executeSql(text, values) {
        const res = await pool.query(text, storableParams(values));
        return { rows: res.rows };
      },
    },
    migrate: () => migratePg(drizzlePg(pool), { migrationsFolder }),
    openChangeFeed: (feedOpts) => postgresChangeFeed(url, feedOpts),
    ping: async () => {
      await pool.query('select 1');
    },
    close: async () => {
      // Locks still held end with their connections.
      for (const client of lockHolders) client.release(true);
      lockHolders.clear();
      await Promise.all([pool.end(), lockPool.end()]);
    },
  };
}

async function openPglite(opts: { dataDir?: string; inMemory?: boolean; image?: Blob }): Promise<Database> {
  let release = () => undefined as void;
  let client: PGlite;
  if (opts.inMemory || !opts.dataDir) {
    client = opts.image ? new PGlite({ loadDataDir: opts.image }) : new PGlite();
  } else {
    const dir = path.join(opts.dataDir, 'db');
    release = lockDataDir(opts.dataDir);
    try {
      client = new PGlite(dir);
      await client.waitReady;
    } catch (err) {
      release();
      throw err;
    }
  }
  storableTextOnPglite(client);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    sql: {
      // pg-boss sends multi-statement scripts without parameters (exec) and single queries with them.
      async executeSql(text, values) {
        if (!values || values.length === 0) {
          const results = await client.exec(text);
          return { rows: results.at(-1)?.rows ?? [] };
        }
        const res = await client.query(text, storableParams(values));
        return { rows: res.rows };
      },
    },
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder }),
    openChangeFeed: () => pgliteChangeFeed(client),
    image: () => client.dumpDataDir('none'),
    ping: async () => {
      await client.query('select 1');
    },
    close: async () => {
      try {
        await client.close();
      } finally {
        release();
      }
    },
  };
}

/** node-postgres client whose every query's parameters are made storable (see storable-text.ts). */
class StorableTextClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [config, values] = args;
    if (Array.isArray(values)) args[1] = storableParams(values);
    else if (config && typeof config === 'object' && Array.isArray((config as pg.QueryConfig).values))
      args[0] = { ...(config as pg.QueryConfig), values: storableParams((config as pg.QueryConfig).values) };
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

/** PGlite with every query's parameters made storable, in and out of transactions. */
function storableTextOnPglite(client: PGlite): void {
  type Queryable = Pick<PGlite, 'query'>;
  const wrapQuery = (target: Queryable) => {
    const query = target.query.bind(target);
    target.query = ((text: string, params?: unknown[], options?: object) =>
      query(text, storableParams(params), options)) as PGlite['query'];
  };
  wrapQuery(client);
  const transaction = client.transaction.bind(client);
  client.transaction = ((fn: (tx: Parameters<Parameters<PGlite['transaction']>[0]>[0]) => Promise<unknown>) =>
    transaction((tx) => {
      wrapQuery(tx);
      return fn(tx);
    })) as PGlite['transaction'];
}
