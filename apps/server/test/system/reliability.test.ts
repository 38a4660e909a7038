// Regression tests for what an attacker's probe of the running app found: each test is named after
// what it protects. The broader battery (route matrix, fuzzing, bad-file corpus) has files of its own.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  auditEvents,
  instances,
  mailOutbox,
  notifications,
  studies,
  studyUploads,
} from '../../src/db/schema/index';
import { JOB_SCHEMA } from '../../src/jobs/queue';
import { storableParam } from '../../src/db/storable-text';
import { buildViewerApp } from '../../src/modules/viewer/viewer-app';
import { ingestFiles } from '../helpers/dicom-ingest';
import {
  FIXTURES,
  buildZip,
  listen,
  makeDicom,
  newPatient,
  storageToken,
  uid,
  uploadAndProcess,
  type Patient,
} from '../helpers/studies';
import {
  createTestContext,
  eventually,
  registerPatient,
  strongPassword,
  type TestContext,
} from '../helpers/test-app';

let ctx: TestContext;
let base: string;
let ada: Patient;
let bob: Patient;
const mr = readFileSync(`${FIXTURES}/MR_small.dcm`);

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-reliability@example.com');
  bob = await newPatient(ctx, 'bob-reliability@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

async function healthy(): Promise<number> {
  const t0 = Date.now();
  const res = await fetch(`${base}/api/health`);
  expect(res.status).toBe(200);
  return Date.now() - t0;
}

describe('containment: text the database cannot store never fails a write', () => {
  it('stores a NUL and a lone surrogate in text and in JSON as U+FFFD, through Drizzle and raw SQL', async () => {
    const { db, sql } = ctx.services.database;
    await db.insert(auditEvents).values({
      actorId: ada.id,
      action: 'test.unstorable\u0000text',
      targetType: 'study',
      targetId: 'x\ud800y',
      outcome: 'success',
      details: { reason: 'a\u0000b', name: '\udc00', emoji: '😀' },
    });
    const [row] = await db.select().from(auditEvents).where(eq(auditEvents.targetId, 'x\ufffdy'));
    expect(row!.action).toBe('test.unstorable\ufffdtext');
    expect(row!.targetId).toBe('x\ufffdy');
    expect(row!.details).toEqual({ reason: 'a\ufffdb', name: '\ufffd', emoji: '😀' });
    const res = await sql.executeSql('select $1::jsonb as j, $2::text as t', [
      JSON.stringify({ m: 'x\u0000' }),
      'y\u0000',
    ]);
    expect(res.rows[0]).toEqual({ j: { m: 'x\ufffd' }, t: 'y\ufffd' });
  });

  it('leaves well-formed text alone, escaped backslashes included', () => {
    expect(storableParam('{"a":"\\\\u0000"}')).toBe('{"a":"\\\\u0000"}');
    expect(storableParam('{"a":"\\ud83d\\ude00"}')).toBe('{"a":"\\ud83d\\ude00"}');
    expect(storableParam('plain text, 山田')).toBe('plain text, 山田');
  });

  it('a ZIP entry named with a NUL byte is refused with a reason, and the server keeps serving', async () => {
    const { upload, jobId } = await uploadAndProcess(
      ctx,
      base,
      ada,
      buildZip([{ name: 'a\u0000b/../c.dcm', data: mr }]),
    );
    expect(upload.status).toBe('failed');
    expect(upload.reason).toMatch(/unsafe path/);
    expect(upload.reason).not.toContain('\u0000');
    // The job ended (not left active to be retried into another outage).
    const job = await ctx.services.database.sql.executeSql(
      `select state from ${JOB_SCHEMA}.job where id = $1`,
      [jobId],
    );
    expect((job.rows[0] as { state: string }).state).toBe('completed');
    const [note] = await ctx.services.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.userId, ada.id));
    expect(note!.description).toBe(upload.reason);
    await healthy();
  });
});

describe('decoding budgets: an image that lies about its size is never decoded', () => {
  const liar = () =>
    makeDicom({
      studyUid: uid(),
      seriesUid: uid(),
      sopUid: uid(),
      rows: 65535,
      columns: 65535,
      pixelBytes: 64,
    });

  it('is skipped at ingest with its reason, beside the good files of the same upload', async () => {
    const studyUid = uid();
    const good = makeDicom({ studyUid, seriesUid: uid(), sopUid: uid() });
    const { upload } = await uploadAndProcess(
      ctx,
      base,
      bob,
      buildZip([
        { name: 'good.dcm', data: good },
        { name: 'liar.dcm', data: liar() },
      ]),
    );
    expect(upload.status).toBe('completed');
    expect(upload.summary).toMatchObject({
      instances: 1,
      skipReasons: { 'pixel data shorter than the image it declares': 1 },
    });
  });

  it('is refused at render (a file stored before the check): placeholder at once, health stays fast', async () => {
    // Stored as a good file, then its bytes replaced: what an instance ingested before the check looks like.
    const good = makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() });
    const [studyId] = await ingestFiles(ctx, bob.id, [good]);
    const [inst] = await ctx.services.database.db
      .select({ key: instances.storageKey })
      .from(instances)
      .where(eq(instances.studyId, studyId!));
    await ctx.services.storage.put(inst!.key!, liar());
    const t0 = Date.now();
    const thumb = await ctx.app.inject({ url: `/api/studies/${studyId}/thumbnail`, headers: bob.auth });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['x-thumbnail']).toBe('placeholder');
    expect(Date.now() - t0).toBeLessThan(10_000);
    const [study] = await ctx.services.database.db.select().from(studies).where(eq(studies.id, studyId!));
    expect(study).toBeDefined();
  });

  it('draws a large real image off the main thread: /api/health answers meanwhile, never held for the drawing', async () => {
    const big = makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), rows: 4096, columns: 4096 });
    const [studyId] = await ingestFiles(ctx, bob.id, [big]);
    const started = Date.now();
    const rendering = ctx.app.inject({ url: `/api/studies/${studyId}/thumbnail`, headers: bob.auth });
    const latencies: number[] = [];
    let done = false;
    void rendering.finally(() => (done = true));
    while (!done || latencies.length === 0) latencies.push(await healthy());
    const thumb = await rendering;
    const renderMs = Date.now() - started;
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');
    // Drawn on the main thread, one health check would wait for most of the drawing. Relative to the
    // drawing's own time, so a busy machine slows both sides alike.
    expect(Math.max(...latencies)).toBeLessThan(Math.max(1000, renderMs / 2));
  });
});

describe('clean 400s: a NUL or invalid Unicode is refused before any database call', () => {
  const cases: Array<{
    name: string;
    method: 'GET' | 'PUT' | 'POST' | 'DELETE';
    url: () => string;
    body?: string;
  }> = [
    { name: 'path parameter', method: 'GET', url: () => '/api/studies/user/%00' },
    { name: 'study id', method: 'GET', url: () => '/api/studies/study/a%00b' },
    { name: 'thumbnail id', method: 'GET', url: () => '/api/studies/%00/thumbnail' },
    { name: 'delete ids', method: 'DELETE', url: () => `/api/studies/${bob.id}/%00` },
    { name: 'query string', method: 'GET', url: () => `/api/studies/user/${bob.id}?q=%00` },
    { name: 'JSON string', method: 'PUT', url: () => `/api/users/${bob.id}`, body: '{"name":"\\u0000"}' },
    {
      name: 'lone surrogate in JSON',
      method: 'PUT',
      url: () => `/api/users/${bob.id}`,
      body: '{"name":"\\ud800"}',
    },
    {
      name: 'process prefix',
      method: 'POST',
      url: () => '/api/studies/process',
      body: '{"prefix":"x\\u0000","jobContext":{"uploadType":"regular"}}',
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.method} answers 400 VALIDATION_ERROR`, async () => {
      const res = await ctx.app.inject({
        method: c.method,
        url: c.url(),
        headers: { ...bob.auth, ...(c.body ? { 'content-type': 'application/json' } : {}) },
        ...(c.body ? { payload: c.body } : {}),
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        error: expect.stringMatching(/not allowed/),
      });
    });
  }

  it('sign-in and registration with a NUL in the email answer 400', async () => {
    for (const url of ['/api/auth/login', '/api/auth/register']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: '{"email":"a\\u0000@example.com","password":"x"}',
      });
      expect(res.statusCode, url).toBe(400);
    }
  });

  it("a stranger's denied read of a study is audited", async () => {
    const [studyId] = await ingestFiles(ctx, bob.id, [
      makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
    ]);
    const res = await ctx.app.inject({ url: `/api/studies/study/${studyId}`, headers: ada.auth });
    expect(res.statusCode).toBe(404);
    const denied = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.actorId, ada.id),
          eq(auditEvents.targetId, studyId!),
          eq(auditEvents.outcome, 'denied'),
        ),
      );
    expect(denied.length).toBeGreaterThan(0);
  });

  it('the uploads table never holds an unstorable reason', async () => {
    const rows = await ctx.services.database.db.select().from(studyUploads);
    for (const r of rows) expect(r.reason ?? '').not.toContain('\u0000');
  });
});

describe('one answer for "not yours or not there"', () => {
  it("a delete of someone else's study, a random id and a malformed id get the same 404", async () => {
    const [bobs] = await ingestFiles(ctx, bob.id, [
      makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
    ]);
    const answers = [];
    for (const target of [bobs!, '3f1c6a52-8d0e-4c1b-9a55-0e2f5b7c9d11', 'not-a-uuid']) {
      const res = await ctx.app.inject({
        method: 'DELETE',
        url: `/api/studies/${ada.id}/${target}`,
        headers: ada.auth,
      });
      answers.push({ status: res.statusCode, body: res.json() });
    }
    expect(answers[0]!.status).toBe(404);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    const [still] = await ctx.services.database.db.select().from(studies).where(eq(studies.id, bobs!));
    expect(still).toBeDefined();
  });
});

describe('CSRF: state-changing requests from another origin are refused', () => {
  const own = () => ctx.services.config.publicUrl;
  const change = (headers: Record<string, string | undefined>) =>
    ctx.app.inject({
      method: 'PUT',
      url: `/api/users/${bob.id}`,
      headers: { ...bob.auth, ...headers },
      payload: { name: 'Bob Changed' },
    });

  it('refuses a foreign Origin, a cross-site or same-site fetch, and an opaque origin', async () => {
    for (const headers of [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: ctx.services.config.viewerPublicUrl, 'sec-fetch-site': 'same-site' },
    ]) {
      const res = await change(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
    }
  });

  it('refuses them on every kind of request: sign-out, revoke others, delete, upload, process', async () => {
    const evil = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
    const requests = [
      { method: 'POST' as const, url: '/api/auth/logout' },
      { method: 'POST' as const, url: '/api/auth/sessions/revoke-others' },
      { method: 'DELETE' as const, url: `/api/studies/${bob.id}/3f1c6a52-8d0e-4c1b-9a55-0e2f5b7c9d11` },
      { method: 'POST' as const, url: '/api/uploads' },
      { method: 'POST' as const, url: '/api/studies/process' },
    ];
    for (const r of requests) {
      const res = await ctx.app.inject({ ...r, headers: { ...bob.auth, ...evil } });
      expect(res.statusCode, r.url).toBe(403);
    }
    // The session survived every one of them.
    const me = await ctx.app.inject({ url: '/api/auth/me', headers: bob.auth });
    expect(me.statusCode).toBe(200);
  });

  it('accepts the app itself, a direct navigation and a client that is not a browser', async () => {
    for (const headers of [
      { origin: own(), 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      {},
    ]) {
      expect((await change(headers)).statusCode, JSON.stringify(headers)).toBe(200);
    }
  });

  it('reads are not affected', async () => {
    const res = await ctx.app.inject({
      url: `/api/studies/user/${bob.id}`,
      headers: { ...bob.auth, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('server timeouts', () => {
  it('closes a connection whose headers trickle in for longer than 10 s', async () => {
    const { connect } = await import('node:net');
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname);
    const t0 = Date.now();
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n');
    // One header line every 2 s keeps the connection from ever being idle.
    const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 2_000);
    const response = await new Promise<string>((resolve) => {
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('close', () => resolve(data));
    });
    clearInterval(drip);
    const elapsed = Date.now() - t0;
    expect(response).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeGreaterThanOrEqual(9_000);
    expect(elapsed).toBeLessThan(20_000);
  }, 30_000);
});

describe('credentials end with the session', () => {
  async function openViewer(viewerApp: FastifyInstance, p: Patient, studyId: string) {
    const urlRes = await ctx.app.inject({ url: `/api/dicom/viewer/${studyId}`, headers: p.auth });
    const grant = new URL((urlRes.json() as { url: string }).url).hash.replace('#grant=', '');
    const bind = await viewerApp.inject({
      method: 'POST',
      url: '/dicomweb/session',
      headers: { authorization: `Bearer ${grant}` },
    });
    expect(bind.statusCode).toBe(204);
    const cookie = bind.cookies[0]!;
    return { authorization: `Bearer ${grant}`, cookie: `${cookie.name}=${cookie.value}` };
  }
  const createUpload = (p: Patient, token: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/uploads',
      headers: {
        authorization: `Bearer ${token}`,
        'tus-resumable': '1.0.0',
        'upload-length': '22',
        'upload-metadata': `objectName ${Buffer.from(`${p.id}/${randomUUID()}/study.zip`).toString('base64')}`,
      },
    });

  it('signing out ends the viewer grant and the upload credential that session obtained', async () => {
    const viewerApp = await buildViewerApp(ctx.services, { logRequests: false });
    try {
      const carol = await newPatient(ctx, 'carol-reliability@example.com');
      const [studyId] = await ingestFiles(ctx, carol.id, [
        makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
      ]);
      const viewerAuth = await openViewer(viewerApp, carol, studyId!);
      const metadata = () => viewerApp.inject({ url: '/dicomweb/studies', headers: viewerAuth });
      expect((await metadata()).statusCode).toBe(200);
      const uploadToken = await storageToken(ctx, carol);
      expect((await createUpload(carol, uploadToken)).statusCode).toBe(201);

      const out = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', headers: carol.auth });
      expect(out.statusCode).toBe(200);
      // At once: ending the session evicts the grants it obtained from every process's check cache.
      expect((await metadata()).statusCode).toBe(401);
      expect((await createUpload(carol, uploadToken)).statusCode).toBe(401);
    } finally {
      await viewerApp.close();
    }
  });

  it('"sign out other devices" ends the credentials of those devices only', async () => {
    const viewerApp = await buildViewerApp(ctx.services, { logRequests: false });
    try {
      const dan = await newPatient(ctx, 'dan-reliability@example.com');
      const [studyId] = await ingestFiles(ctx, dan.id, [
        makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
      ]);
      const login = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: {
          email: 'dan-reliability@example.com',
          password: strongPassword,
          captcha: await ctx.captcha(),
        },
      });
      const other: Patient = { ...dan, auth: { authorization: `Bearer ${login.json().data.authToken}` } };
      const mine = await openViewer(viewerApp, dan, studyId!);
      const theirs = await openViewer(viewerApp, other, studyId!);
      const theirUpload = await storageToken(ctx, other);
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/sessions/revoke-others',
        headers: dan.auth,
      });
      expect(res.statusCode).toBe(200);
      expect((await viewerApp.inject({ url: '/dicomweb/studies', headers: theirs })).statusCode).toBe(401);
      expect((await viewerApp.inject({ url: '/dicomweb/studies', headers: mine })).statusCode).toBe(200);
      expect((await createUpload(dan, theirUpload)).statusCode).toBe(401);
      expect((await createUpload(dan, await storageToken(ctx, dan))).statusCode).toBe(201);
    } finally {
      await viewerApp.close();
    }
  });
});

describe('refresh-token reuse', () => {
  let clocked: TestContext;
  let at = Date.now();
  beforeAll(async () => {
    clocked = await createTestContext({}, { now: () => new Date(at) });
  });
  afterAll(async () => {
    await clocked?.close();
  });
  const refresh = (refreshToken: string) =>
    clocked.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } });
  const me = (authToken: string) =>
    clocked.app.inject({ url: '/api/auth/me', headers: { authorization: `Bearer ${authToken}` } });

  it('an exchanged refresh token presented again revokes the whole session', async () => {
    const reg = await registerPatient(clocked, 'eve-reliability@example.com');
    const first = reg.json().data as { authToken: string; refreshToken: string };
    const second = (await refresh(first.refreshToken)).json() as { authToken: string; refreshToken: string };
    expect((await me(second.authToken)).statusCode).toBe(200);
    at += 60_000;
    // The thief (or the victim) replays the old token: refused, and the family ends with it.
    expect((await refresh(first.refreshToken)).statusCode).toBe(401);
    expect((await me(second.authToken)).statusCode).toBe(401);
    expect((await refresh(second.refreshToken)).statusCode).toBe(401);
  });

  it('two tabs refreshing at the same moment only fail the slower one', async () => {
    const reg = await registerPatient(clocked, 'fay-reliability@example.com');
    const first = reg.json().data as { authToken: string; refreshToken: string };
    const second = (await refresh(first.refreshToken)).json() as { authToken: string; refreshToken: string };
    at += 1_000;
    expect((await refresh(first.refreshToken)).statusCode).toBe(401);
    expect((await me(second.authToken)).statusCode).toBe(200);
    expect((await refresh(second.refreshToken)).statusCode).toBe(200);
  });
});

describe('lockout without denial of service', () => {
  const email = 'gus-reliability@example.com';
  const login = (password: string, captcha: string, cookie?: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: cookie ? { cookie } : {},
      payload: { email, password, captcha },
    });

  it('ten wrong passwords lock out unknown browsers, not the owner: their known browser and the emailed link still sign in', async () => {
    await registerPatient(ctx, email);
    // The owner signs in once from their browser, which becomes known.
    const first = await login(strongPassword, await ctx.captcha(email));
    expect(first.statusCode).toBe(200);
    const device = first.cookies.find((c) => c.name === 'knownDevice')!;
    expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth' });
    const knownBrowser = `knownDevice=${device.value}`;

    // Someone else guesses ten times; each guess after the third waits longer.
    const started = Date.now();
    for (let i = 0; i < 10; i++)
      expect((await login('Wrong!Pass1', await ctx.captcha(email))).statusCode).toBe(401);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100 + 200 + 400 + 800 + 3 * 1000 - 50);

    // The captcha for this email now asks four times the work: an ordinary one is refused.
    const easy = await login(strongPassword, await ctx.captcha());
    expect(easy.statusCode).toBe(400);
    expect(easy.json().code).toBe('CAPTCHA_FAILED');
    // Unknown browsers are locked out, even with the right password.
    expect((await login(strongPassword, await ctx.captcha(email))).statusCode).toBe(429);
    // The owner's known browser is not.
    expect((await login(strongPassword, await ctx.captcha(email), knownBrowser)).statusCode).toBe(200);

    // The owner was emailed a one-time link that makes any browser they open it in known.
    const mail = await eventually(async () => {
      const rows = await ctx.services.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, email));
      return rows.find((m) => m.subject.includes('Sign-in attempts'));
    });
    const link = new URL(/https?:\/\/\S+\/api\/auth\/unlock\?token=[\w-]+/.exec(mail.text)![0]);
    const opened = await ctx.app.inject({ url: `${link.pathname}${link.search}` });
    expect(opened.statusCode).toBe(302);
    expect(opened.headers.location).toBe('/login?unlocked=1');
    const unlocked = opened.cookies.find((c) => c.name === 'knownDevice')!;
    expect(
      (await login(strongPassword, await ctx.captcha(email), `knownDevice=${unlocked.value}`)).statusCode,
    ).toBe(200);
    const again = await ctx.app.inject({ url: `${link.pathname}${link.search}` });
    expect(again.headers.location).toBe('/login?unlocked=0');
    expect(again.cookies.find((c) => c.name === 'knownDevice')).toBeUndefined();

    // A known browser of another account is no key to this one.
    const other = await newPatient(ctx, 'hal-reliability@example.com');
    expect(other.id).toBeDefined();
    const hal = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: {
        email: 'hal-reliability@example.com',
        password: strongPassword,
        captcha: await ctx.captcha(),
      },
    });
    const halBrowser = `knownDevice=${hal.cookies.find((c) => c.name === 'knownDevice')!.value}`;
    expect((await login(strongPassword, await ctx.captcha(email), halBrowser)).statusCode).toBe(429);
  }, 60_000);
});
