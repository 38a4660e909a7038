import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPA_PATHS } from '@mi/contracts/spa-routes';
import { buildApp } from '../../src/http/app';
import { createTestContext, type TestContext } from '../helpers/test-app';

/** The built web app's index.html and files are served; every other path is a 404 (http/app.ts). */
let ctx: TestContext;
let app: FastifyInstance;
const PAGE = '<!doctype html><title>app page</title>';

beforeAll(async () => {
  ctx = await createTestContext();
  const webDir = path.join(ctx.dataDir, 'web-dist');
  await mkdir(path.join(webDir, 'assets'), { recursive: true });
  await writeFile(path.join(webDir, 'index.html'), PAGE);
  await writeFile(path.join(webDir, 'assets', 'app.js'), 'export {};\n');
  await writeFile(path.join(webDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  app = await buildApp(ctx.services, { logRequests: false, webDistDir: webDir });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await ctx?.close();
});

const get = (url: string, method: 'GET' | 'HEAD' = 'GET') => app.inject({ method, url });

describe('the app page', () => {
  it('is served for each of the SPA routes, with parameters, queries and a trailing slash', async () => {
    const urls = Object.values(SPA_PATHS).map((p) =>
      p.replace(/:\w+/g, '3f2b8f2e-1d1c-4b7e-9a55-0d5f2d1e7a10'),
    );
    urls.push('/studies/', '/login?redirect=%2Fsettings', '/reset-password?email=a%40b.c&challenge=x');
    for (const url of urls) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(PAGE);
      expect(res.headers['cache-control'], url).toBe('no-cache');
    }
    expect((await get('/settings', 'HEAD')).statusCode).toBe(200);
  });

  it('serves files that exist', async () => {
    expect((await get('/assets/app.js')).statusCode).toBe(200);
    expect((await get('/favicon.svg')).statusCode).toBe(200);
  });

  it('comes with a 404 for another page-like path, so the app shows its not-found card', async () => {
    for (const url of ['/no-such-page', '/studies/extra/segments', '/help/a/b']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toBe(PAGE);
    }
  });

  it('is never served for the APIs, dot-files or missing files: a plain 404', async () => {
    for (const url of [
      '/dicomweb/nonexistent',
      '/dicomweb',
      '/fhir/Patient',
      '/fhir',
      '/api/nonexistent',
      '/api',
      '/.env',
      '/.git/config',
      '/.well-known/security.txt',
      '/assets/.hidden',
      '/%2eenv',
      '/assets/missing.js',
      '/robots.txt',
      '/wp-login.php',
      '/settings.json',
      '/studies/backup.zip',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('app page');
    }
    expect((await get('/.env', 'HEAD')).statusCode).toBe(404);
    // A path that is not valid percent-encoding is refused, and not with the app page either.
    const bad = await get('/%E0%A4%A');
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(bad.body).not.toContain('app page');
  });

  it('is not an answer to other methods', async () => {
    const res = await app.inject({ method: 'POST', url: '/settings' });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('app page');
  });
});
