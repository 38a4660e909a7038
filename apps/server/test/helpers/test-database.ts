import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated, seeded database each test file starts from (test/global-setup.ts builds it; helpers/test-app.ts copies it). */
    databaseTemplate: { kind: 'pglite'; imagePath: string } | { kind: 'postgres'; name: string } | null;
  }
}

/** Runs one statement on the PostgreSQL server of `adminUrl` (creating and dropping databases). */
export async function onPostgres(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** A new database `mi_test_<random>` (a copy of `template` when given); its name and URL. */
export async function createPostgresDatabase(
  adminUrl: string,
  opts: { prefix?: string; template?: string } = {},
): Promise<{ name: string; url: string }> {
  const name = `${opts.prefix ?? 'mi_test'}_${randomBytes(6).toString('hex')}`;
  await onPostgres(adminUrl, `create database ${name}${opts.template ? ` template ${opts.template}` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

export const dropPostgresDatabase = (adminUrl: string, name: string) =>
  onPostgres(adminUrl, `drop database if exists ${name} with (force)`);

/** The configuration tests run with: quiet, a throwaway DATA_DIR, a cheap but real ALTCHA challenge. */
export function testConfig(opts: {
  dataDir: string;
  databaseUrl?: string;
  sessionSecret?: string;
  env?: Record<string, string>;
}) {
  return loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: opts.dataDir,
    LOG_LEVEL: 'silent',
    ALTCHA_COST: '10',
    SESSION_SECRET: opts.sessionSecret ?? randomBytes(32).toString('hex'),
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    ...opts.env,
  });
}
