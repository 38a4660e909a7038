import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRows, copyText } from '../../src/db/copy-rows';
import type { Db } from '../../src/db/client';
import { createTestContext, type TestContext } from '../helpers/test-app';

let ctx: TestContext;
let db: Db;

beforeAll(async () => {
  ctx = await createTestContext();
  db = ctx.services.database.db;
  await db.execute(sql`create table copy_probe (id integer primary key, label text, amount bigint)`);
});
afterAll(async () => {
  await ctx?.close();
});

describe('copyText', () => {
  it('escapes what COPY text format reads specially and marks NULL', () => {
    expect(copyText(null)).toBe('\\N');
    expect(copyText(12)).toBe('12');
    expect(copyText('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyText('\\N')).toBe('\\\\N');
  });
});

describe('copyRows', () => {
  it('inserts rows with tabs, newlines, backslashes and NULLs as they were', async () => {
    const rows = [
      [1, 'plain', 10],
      [2, 'tab\there\nnew line\r\\back', null],
      [3, null, 9_007_199_254_740_991],
      [4, '\\N is text here', 0],
      [5, 'Ünïcödé 漢字', -5],
    ] as const;
    // More rows than one stream write, so batching is exercised too.
    const many = Array.from({ length: 2500 }, (_, i) => [100 + i, `row ${i}`, i] as const);
    await db.transaction(async (tx) => {
      await copyRows(tx as unknown as Db, 'copy_probe', ['id', 'label', 'amount'], [...rows, ...many]);
    });
    const stored = (
      await ctx.services.database.sql.executeSql('select id, label, amount::text from copy_probe order by id')
    ).rows as Array<{ id: number; label: string | null; amount: string | null }>;
    expect(stored.length).toBe(rows.length + many.length);
    expect(stored.slice(0, rows.length)).toEqual(
      rows.map(([id, label, amount]) => ({ id, label, amount: amount === null ? null : String(amount) })),
    );
    expect(stored.at(-1)).toEqual({ id: 2599, label: 'row 2499', amount: '2499' });
  });

  it('is part of its transaction: a failed row rolls everything back', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`insert into copy_probe (id, label) values (9000, 'before')`);
        // id 1 exists: the primary key refuses the COPY.
        await copyRows(
          tx as unknown as Db,
          'copy_probe',
          ['id', 'label'],
          [
            [9001, 'new'],
            [1, 'again'],
          ],
        );
      }),
    ).rejects.toThrow();
    const left = (
      await ctx.services.database.sql.executeSql('select count(*)::int as n from copy_probe where id >= 9000')
    ).rows as Array<{ n: number }>;
    expect(left[0]!.n).toBe(0);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'refuses to run outside a transaction on a connection pool',
    async () => {
      await expect(copyRows(db, 'copy_probe', ['id'], [[9100]])).rejects.toThrow(/inside a transaction/);
    },
  );
});
