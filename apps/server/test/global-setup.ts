import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createLogger } from '../src/logger';
import { seedReferenceData } from '../src/seed';
import { createServices } from '../src/services';
import { createPostgresDatabase, dropPostgresDatabase, testConfig } from './helpers/test-database';

/**
 * Builds one migrated and seeded database before the test files run, so that each file copies it
 * instead of migrating and seeding anew: an image of an in-memory PGlite, or — when DATABASE_URL
 * is set — a PostgreSQL template database.
 */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(path.join(tmpdir(), 'mi-test-template-'));
  const adminUrl = process.env.DATABASE_URL;
  const database = adminUrl
    ? await createPostgresDatabase(adminUrl, { prefix: 'mi_test_template' })
    : undefined;
  const databaseUrl = database?.url;
  const config = testConfig({ dataDir: dir, databaseUrl });
  const services = await createServices(config, createLogger('silent'), {
    runWorkers: false,
    inMemoryDatabase: !databaseUrl,
  });
  const imagePath = path.join(dir, 'database.tar');
  try {
    await seedReferenceData(services);
    const image = databaseUrl ? undefined : await services.database.image?.();
    if (image) await writeFile(imagePath, new Uint8Array(await image.arrayBuffer()));
  } finally {
    await services.close();
  }
  project.provide(
    'databaseTemplate',
    database ? { kind: 'postgres', name: database.name } : { kind: 'pglite', imagePath },
  );

  return async () => {
    await rm(dir, { recursive: true, force: true });
    if (adminUrl && database) await dropPostgresDatabase(adminUrl, database.name);
  };
}
