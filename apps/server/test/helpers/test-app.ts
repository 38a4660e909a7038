import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { inject } from 'vitest';
import { buildApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { createServices, type Services } from '../../src/services';
import { seedReferenceData } from '../../src/seed';
import { createPostgresDatabase, dropPostgresDatabase, testConfig } from './test-database';

export interface TestContext {
  app: FastifyInstance;
  services: Services;
  dataDir: string;
  /**
   * A solved ALTCHA payload, as the browser widget would send. With `email`, the challenge is asked
   * of the app for that email (as hard as sign-ins to it currently need).
   */
  captcha(email?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * A real app on a real database: a fresh in-memory PGlite, or — when DATABASE_URL is set — a
 * fresh PostgreSQL database created for this test file and dropped afterwards. Both start as a
 * copy of the migrated, seeded database that test/global-setup.ts builds once per run.
 */
export async function createTestContext(
  env: Record<string, string> = {},
  opts: {
    beforeReady?: (app: FastifyInstance) => void;
    now?: () => Date;
    /**
     * A second app instance (its own services, connection pool, listener and caches) on the
     * database of `sameDatabaseAs`, as a second process would run; PostgreSQL only. The database
     * is dropped by the context that created it.
     */
    sameDatabaseAs?: TestContext;
  } = {},
): Promise<TestContext> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mi-test-'));
  const adminUrl = opts.sameDatabaseAs ? undefined : process.env.DATABASE_URL;
  let databaseUrl: string | undefined = opts.sameDatabaseAs?.services.config.databaseUrl;
  let dbName: string | undefined;
  if (opts.sameDatabaseAs && !databaseUrl)
    throw new Error('two app instances need PostgreSQL (DATABASE_URL)');
  if (adminUrl) {
    const template = databaseTemplate();
    const created = await createPostgresDatabase(adminUrl, {
      template: template?.kind === 'postgres' ? template.name : undefined,
    });
    dbName = created.name;
    databaseUrl = created.url;
  }
  const config = testConfig({
    dataDir,
    databaseUrl,
    sessionSecret: opts.sameDatabaseAs?.services.config.sessionSecret,
    env,
  });
  const services = await createServices(config, createLogger('silent'), {
    runWorkers: true,
    inMemoryDatabase: !databaseUrl,
    databaseImage: databaseUrl ? undefined : await pgliteImage(),
    now: opts.now,
  });
  // Without test/global-setup.ts's seeded copy (the benchmarks), seed as `serve` does.
  if (!databaseTemplate() && !opts.sameDatabaseAs) await seedReferenceData(services);
  const app = await buildApp(services, { logRequests: false });
  opts.beforeReady?.(app);
  await app.ready();
  return {
    app,
    services,
    dataDir,
    async captcha(email?: string) {
      type Challenge = Parameters<typeof solveChallenge>[0]['challenge'];
      const challenge = email
        ? ((
            await app.inject({
              url: `/api/auth/captcha/challenge?${new URLSearchParams({ email }).toString()}`,
            })
          ).json() as Challenge)
        : ((await services.captcha.createChallenge!()) as Challenge);
      const solution = await solveChallenge({ challenge, deriveKey });
      return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
    },
    async close() {
      await app.close();
      await services.close();
      await rm(dataDir, { recursive: true, force: true });
      if (adminUrl && dbName) await dropPostgresDatabase(adminUrl, dbName);
    },
  };
}

/** What test/global-setup.ts built; null when run without it (then each file migrates its own). */
function databaseTemplate() {
  try {
    return inject('databaseTemplate') ?? null;
  } catch {
    // Outside Vitest (the benchmarks in bench/ build their app with these helpers).
    return null;
  }
}

let image: Promise<Blob> | undefined;
/** The migrated PGlite image, read once per test worker. */
async function pgliteImage(): Promise<Blob | undefined> {
  const template = databaseTemplate();
  if (template?.kind !== 'pglite') return undefined;
  image ??= readFile(template.imagePath).then((bytes) => new Blob([bytes]));
  return image;
}

/** Cookie header value from a response's Set-Cookie headers. */
export function cookieHeader(res: { cookies: Array<{ name: string; value: string }> }): string {
  return res.cookies
    .filter((c) => c.value !== '')
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
}

export const strongPassword = 'Str0ng!Passw0rd';

export async function registerPatient(ctx: TestContext, email: string, password = strongPassword) {
  return registerUser(ctx, email, { password });
}

/** POST /api/auth/register with valid patient fields; `extra` overrides or adds fields (e.g. a professional's). */
export async function registerUser(
  ctx: TestContext,
  email: string,
  opts: { password?: string; extra?: Record<string, unknown>; remoteAddress?: string } = {},
) {
  return ctx.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    ...(opts.remoteAddress ? { remoteAddress: opts.remoteAddress } : {}),
    payload: {
      email,
      password: opts.password ?? strongPassword,
      name: 'Ada Lovelace',
      role: 'patient',
      mobilePhone: '+15550100',
      acceptTerms: true,
      captcha: await ctx.captcha(),
      ...opts.extra,
    },
  });
}

/** Waits until a condition holds (jobs run asynchronously). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
