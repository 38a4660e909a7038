import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../src/config';
import { auditEvents, users } from '../../src/db/schema/index';
import { buildApp } from '../../src/http/app';
import { hashPassword } from '../../src/modules/auth/password';
import {
  createTestContext,
  eventually,
  registerPatient,
  strongPassword,
  type TestContext,
} from '../helpers/test-app';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext(
    {},
    {
      beforeReady(app) {
        // A route that fails unexpectedly, to see what a 5xx looks like from outside.
        app.get('/api/test/explode', async () => {
          throw new Error('database password is hunter2');
        });
      },
    },
  );
});
afterAll(async () => {
  await ctx?.close();
});

describe('bad input', () => {
  it('answers malformed JSON with a clear 400', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Request body is not valid JSON', code: 'BAD_REQUEST' });
  });

  it('answers wrong types with a 400 naming the field', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 42, password: 'x' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
    expect(res.json().error).toMatch(/^email: /);
  });

  it('answers unknown fields with a 400 naming them', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'a@b.co', password: 'x', isAdmin: true },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Unrecognized key: "isAdmin"');
  });

  it('answers an oversized body with a 413 stating the limit', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'a@b.co', password: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      error: expect.stringContaining('1024 KiB'),
    });
  });

  it('answers an unknown API path with a JSON 404', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
  });

  it('hides internals of unexpected failures behind a generic 500 with a request id', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/test/explode' });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toMatchObject({
      code: 'INTERNAL',
      error: 'Something went wrong on our side. Please try again.',
    });
    expect(body.requestId).toBe(res.headers['x-request-id']);
    expect(res.body).not.toContain('hunter2');
  });
});

describe('security headers and documents', () => {
  it('sends a CSP without inline scripts that forbids framing, and no HSTS over plain HTTP', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    // The same headers on every answer, errors and unknown paths included.
    const missing = await ctx.app.inject({ method: 'GET', url: '/api/no-such-route' });
    expect(missing.statusCode).toBe(404);
    for (const name of [
      'content-security-policy',
      'x-frame-options',
      'referrer-policy',
      'x-content-type-options',
    ])
      expect(missing.headers[name]).toBe(res.headers[name]);
    expect(missing.headers['referrer-policy']).toBe('no-referrer');
  });

  it('sends HSTS when the public URL is HTTPS', async () => {
    // The app as a start with PUBLIC_URL=https://… builds it, over this file's services: a second
    // database would only add its start-up (seconds of PGlite on a busy machine) to the test.
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: ctx.dataDir,
      LOG_LEVEL: 'silent',
      SESSION_SECRET: ctx.services.config.sessionSecret,
      ...(ctx.services.config.databaseUrl ? { DATABASE_URL: ctx.services.config.databaseUrl } : {}),
      PUBLIC_URL: 'https://imaging.example.org',
    });
    const app = await buildApp({ ...ctx.services, config }, { logRequests: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/health' });
      expect(res.headers['strict-transport-security']).toContain('max-age=31536000');
      const reg = await registerPatient({ ...ctx, app }, 'secure@example.com');
      expect(reg.statusCode, reg.body).toBe(201);
      expect(reg.cookies.length).toBeGreaterThan(0);
      expect(reg.cookies.every((c) => c.secure)).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('serves an OpenAPI document describing the routes', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/docs' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/auth/login', '/api/auth/register', '/api/auth/me', '/api/health']),
    );
    expect(doc.paths['/api/auth/register'].post.requestBody).toBeDefined();
  });

  it('reports database, storage and queue health', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      database: { ok: true, kind: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
      storage: { ok: true, kind: 'fs' },
      queue: { ok: true },
    });
  });
});

describe('admin area', () => {
  it('is invisible (404) to patients and to signed-out callers', async () => {
    const reg = await registerPatient(ctx, 'patient@example.com');
    const bearer = { authorization: `Bearer ${reg.json().data.authToken}` };
    for (const url of ['/api/admin/outbox', '/api/admin/jobs/failed']) {
      expect((await ctx.app.inject({ method: 'GET', url, headers: bearer })).statusCode).toBe(404);
      expect((await ctx.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
  });

  it('shows the outbox and failed jobs to an admin, and audits the outbox read', async () => {
    await ctx.services.users.insertIfEmailFree({
      email: 'root@example.com',
      emailNormalized: 'root@example.com',
      passwordHash: await hashPassword(strongPassword),
      name: 'Root',
      role: 'admin',
    });
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'root@example.com', password: strongPassword, captcha: await ctx.captcha() },
    });
    const bearer = { authorization: `Bearer ${login.json().data.authToken}` };
    const outbox = await eventually(async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/admin/outbox', headers: bearer });
      const data = res.json().data as Array<{ to: string; subject: string }>;
      return data.some((m) => m.to === 'patient@example.com') ? data : undefined;
    });
    expect(outbox.filter((m) => m.to === 'patient@example.com').length).toBeGreaterThan(0);
    const jobs = await ctx.app.inject({ method: 'GET', url: '/api/admin/jobs/failed', headers: bearer });
    expect(jobs.statusCode).toBe(200);
    expect(Array.isArray(jobs.json().data)).toBe(true);
    const [admin] = await ctx.services.database.db
      .select()
      .from(users)
      .where(eq(users.emailNormalized, 'root@example.com'));
    const audit = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'admin.outbox.read'));
    expect(audit.some((a) => a.actorId === admin?.id)).toBe(true);
  });
});
