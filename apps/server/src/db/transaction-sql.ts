import pg from 'pg';
import type { Db, SqlExecutor } from './client';
import { storableParams } from './storable-text';

/**
 * The connection a Drizzle transaction runs on. Drizzle gives a transaction a session of its own,
 * holding the pool client (node-postgres) or the PGlite transaction; a statement sent any other way
 * would run outside the transaction.
 */
export function transactionClient(tx: Db): unknown {
  return (tx as unknown as { session?: { client?: unknown } }).session?.client;
}

interface PgliteQueryable {
  query(sql: string, params?: unknown[], options?: { blob: Blob }): Promise<{ rows: unknown[] }>;
}

/** A PGlite instance or transaction: `query` and `exec` (a node-postgres pool has no `exec`). */
export function isPglite(client: unknown): client is PgliteQueryable {
  return (
    typeof client === 'object' &&
    client !== null &&
    typeof (client as { query?: unknown }).query === 'function' &&
    typeof (client as { exec?: unknown }).exec === 'function'
  );
}

/**
 * Statements with parameters run in the transaction `tx`, for a library that takes such a runner
 * (pg-boss's `db` option): what it writes then commits or rolls back with the transaction.
 */
export function transactionSql(tx: Db): SqlExecutor {
  const client = transactionClient(tx);
  if (!(client instanceof pg.Client) && !isPglite(client))
    throw new Error('transactionSql runs inside a transaction (db.transaction) on PostgreSQL or PGlite');
  return {
    async executeSql(text, values) {
      const res = await client.query(text, storableParams(values));
      return { rows: res.rows };
    },
  };
}
