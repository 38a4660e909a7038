import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { createServices } from '../src/services';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated, seeded database each test file starts from (see helpers/test-app.ts). */
    databaseTemplate: { kind: 'pglite'; imagePath: string } | { kind: 'postgres'; name: string } | null;
  }
}

/**
 * Builds one migrated and seeded database before the test files run, so that each file copies it
 * instead of migrating and seeding anew: an image of an in-memory PGlite, or — when DATABASE_URL
 * is set — a PostgreSQL template database.
 */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(path.join(tmpdir(), 'mi-test-template-'));
  const adminUrl = process.env.DATABASE_URL;
  const name = `mi_test_template_${randomBytes(6).toString('hex')}`;
  let databaseUrl: string | undefined;
  if (adminUrl) {
    await onPostgres(adminUrl, `create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    SESSION_SECRET: randomBytes(32).toString('hex'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const services = await createServices(config, createLogger('silent'), {
    runWorkers: false,
    inMemoryDatabase: !databaseUrl,
  });
  const imagePath = path.join(dir, 'database.tar');
  try {
    const image = databaseUrl ? undefined : await services.database.image?.();
    if (image) await writeFile(imagePath, new Uint8Array(await image.arrayBuffer()));
  } finally {
    await services.close();
  }
  project.provide(
    'databaseTemplate',
    databaseUrl ? { kind: 'postgres', name } : { kind: 'pglite', imagePath },
  );

  return async () => {
    await rm(dir, { recursive: true, force: true });
    if (adminUrl) await onPostgres(adminUrl, `drop database if exists ${name} with (force)`);
  };
}

async function onPostgres(url: string, statement: string) {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
