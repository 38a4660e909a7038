import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViewerApp } from '../../../src/modules/viewer/viewer-app';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { generateSeries } from '../../helpers/dicom-series';
import { createTestContext, eventually, registerPatient, type TestContext } from '../../helpers/test-app';

describe('viewer preparation with the built-in store', () => {
  let ctx: TestContext;
  let user: { id: string; token: string };

  beforeAll(async () => {
    ctx = await createTestContext();
    const data = (await registerPatient(ctx, 'prepare@example.com')).json().data;
    user = { id: data.id as string, token: data.authToken as string };
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
  });

  it('a later upload that adds instances undoes the preparation, and the next preparation covers them', async () => {
    const headers = { authorization: `Bearer ${user.token}` };
    const first = generateSeries({ count: 3, size: 32 });
    const [studyId] = await ingestFiles(
      ctx,
      user.id,
      first.files.map((f) => f.bytes),
    );
    const status = async () =>
      (await ctx.app.inject({ url: `/api/studies/study/${studyId}`, headers })).json().data.status.transfer
        .value as string | null;
    const prepare = async () => {
      const queued = await ctx.app.inject({
        method: 'POST',
        url: `/api/studies/transfer/${studyId}`,
        headers,
      });
      expect(queued.statusCode).toBe(202);
      await eventually(async () => (await status()) === 'completed', 30_000);
    };
    await prepare();
    // Prepared: asking again queues nothing.
    const again = await ctx.app.inject({ method: 'POST', url: `/api/studies/transfer/${studyId}`, headers });
    expect(again.json().jobId).toBeNull();

    const second = generateSeries({
      count: 2,
      size: 32,
      studyInstanceUid: first.studyInstanceUid,
      seriesNumber: 2,
    });
    await ingestFiles(
      ctx,
      user.id,
      second.files.map((f) => f.bytes),
    );
    expect(await status()).toBeNull();
    await prepare();
    // What preparation built for the new series is what the viewer reads.
    const cached = await ctx.services.database.sql.executeSql(
      'select count(*)::int as n from series_metadata_cache c join series s on s.id = c.series_id where s.study_id = $1',
      [studyId],
    );
    expect((cached.rows[0] as { n: number }).n).toBe(2);
  }, 60_000);
});

describe('the viewer origin serves OHIF compressed, cached and revalidated', () => {
  let ctx: TestContext;
  let app: FastifyInstance;
  let dir: string;
  const chunk = `${'/* a chunk */ console.log(1);\n'.repeat(200)}`;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ohif-test-'));
    mkdirSync(path.join(dir, 'ort'));
    writeFileSync(
      path.join(dir, 'index.html'),
      '<!doctype html><html><head><script>window.PUBLIC_URL = "/";</script><link rel="preload" href="/12.bundle.0123456789abcdef0123.js" as="script"></head><body></body></html>',
    );
    writeFileSync(path.join(dir, '12.bundle.0123456789abcdef0123.js'), chunk);
    writeFileSync(path.join(dir, '12.bundle.0123456789abcdef0123.js.br'), brotliCompressSync(chunk));
    writeFileSync(path.join(dir, '12.bundle.0123456789abcdef0123.js.gz'), gzipSync(chunk));
    writeFileSync(path.join(dir, '12.css'), 'body{color:red}');
    writeFileSync(path.join(dir, 'ort', 'ort-wasm.wasm'), 'not hashed');
    writeFileSync(path.join(dir, 'app-config.js'), 'window.config = {};');
    ctx = await createTestContext();
    app = await buildViewerApp(ctx.services, {
      ohifDir: dir,
      appConfigFile: path.join(dir, 'app-config.js'),
      logRequests: false,
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the brotli or gzip copy to browsers that accept it, the plain file to others', async () => {
    const url = '/12.bundle.0123456789abcdef0123.js';
    const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(chunk);

    const gz = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await app.inject({ url });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(chunk);
  });

  it('revalidates what is not content-hashed, and index.html and app-config.js answer 304 when unchanged', async () => {
    const css = await app.inject({ url: '/12.css' });
    expect(css.headers['cache-control']).toBe('no-cache');
    const ort = await app.inject({ url: '/ort/ort-wasm.wasm' });
    expect(ort.headers['cache-control']).toBe('no-cache');

    for (const url of ['/viewer?StudyInstanceUIDs=1.2.3', '/app-config.js']) {
      const first = await app.inject({ url });
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('no-cache');
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await app.inject({ url, headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      const changed = await app.inject({ url, headers: { 'if-none-match': '"other"' } });
      expect(changed.statusCode).toBe(200);
    }
    // The page keeps its security policy.
    const page = await app.inject({ url: '/viewer' });
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(page.body).toContain('rel="preload"');
  });
});
