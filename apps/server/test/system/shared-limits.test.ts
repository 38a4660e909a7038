import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, strongPassword, type TestContext } from '../helpers/test-app';

// Limits and one-time captcha solutions live in the database, so that every API process behind a
// load balancer counts and remembers the same things (http/rate-limit-store.ts,
// ports/captcha/altcha-verifier.ts, modules/rate-limit/shared-limits.repository.ts).

/** A sign-in attempt from `ip`: its answer's status (400 for the empty body until the limit, then 429). */
const attempt = (ctx: TestContext, ip: string) =>
  ctx.app
    .inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: {} })
    .then((res) => res.statusCode);

/** Registers with a solved captcha payload; the answer's status and error code. */
const registerWith = (ctx: TestContext, email: string, captcha: string) =>
  ctx.app
    .inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email, password: strongPassword, name: 'Ada Lovelace', acceptTerms: true, captcha },
    })
    .then((res) => ({ status: res.statusCode, code: (res.json() as { code?: string }).code }));

describe('route limits and captcha solutions, one app instance', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => ctx?.close());

  it('counts a route’s requests per address in the database: the 31st sign-in request in a minute is refused', async () => {
    const statuses = [];
    for (let i = 0; i < 31; i++) statuses.push(await attempt(ctx, '198.51.100.7'));
    expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
    expect(statuses[30]).toBe(429);
    // Another address, and another route from the same address, count apart.
    expect(await attempt(ctx, '198.51.100.8')).toBe(400);
    const other = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/forgot-password',
      remoteAddress: '198.51.100.7',
      payload: {},
    });
    expect(other.statusCode).not.toBe(429);
  });

  it('refuses a replayed captcha solution, naming the captcha in use', async () => {
    const solved = await ctx.captcha();
    expect((await registerWith(ctx, 'once@example.com', solved)).status).toBe(201);
    const replay = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: {
        email: 'twice@example.com',
        password: strongPassword,
        name: 'A',
        acceptTerms: true,
        captcha: solved,
      },
    });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({
      code: 'CAPTCHA_FAILED',
      error: 'Captcha verification failed. Please try again.',
    });
  });
});

describe.skipIf(!process.env.DATABASE_URL)(
  'route limits and captcha solutions, two app instances on one database',
  () => {
    let a: TestContext;
    let b: TestContext;
    beforeAll(async () => {
      a = await createTestContext();
      b = await createTestContext({}, { sameDatabaseAs: a });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    it('counts one address’s requests on both instances together: of 40 alternating sign-in requests, 10 are refused', async () => {
      const statuses = [];
      for (let i = 0; i < 40; i++) statuses.push(await attempt(i % 2 === 0 ? a : b, '203.0.113.9'));
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
    });

    it('accepts a captcha solution once, whichever instance sees it first', async () => {
      const solved = await a.captcha();
      const first = registerWith(a, 'race-a@example.com', solved);
      const second = registerWith(b, 'race-b@example.com', solved);
      const answers = await Promise.all([first, second]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 400]);
      expect(answers.find((r) => r.status === 400)?.code).toBe('CAPTCHA_FAILED');
      // And later, on either one.
      expect((await registerWith(b, 'late@example.com', solved)).code).toBe('CAPTCHA_FAILED');
      expect((await registerWith(a, 'later@example.com', solved)).code).toBe('CAPTCHA_FAILED');
    });
  },
);
