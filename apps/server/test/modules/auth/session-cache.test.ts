import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { FEED_APPLICATION_NAME } from '../../../src/db/change-feed';
import { sessions, studies } from '../../../src/db/schema/index';
import { hashPassword } from '../../../src/modules/auth/password';
import { hashToken } from '../../../src/modules/auth/tokens';
import {
  createTestContext,
  eventually,
  registerUser,
  strongPassword,
  type TestContext,
} from '../../helpers/test-app';

// Sessions are answered from memory after the first lookup; these tests check that every way a
// session or an account can change still takes effect on the very next request, in this process
// and in another one on the same database.

let ipCounter = 0;
const freshIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
const call = (c: TestContext, opts: InjectOptions) => c.app.inject({ ...opts, remoteAddress: freshIp() });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const me = (c: TestContext, token: string) =>
  call(c, { method: 'GET', url: '/api/auth/me', headers: bearer(token) });

async function register(c: TestContext, email: string, extra: Record<string, unknown> = {}) {
  const res = await registerUser(c, email, { extra, remoteAddress: freshIp() });
  expect(res.statusCode).toBe(201);
  return res.json().data as { id: string; authToken?: string; refreshToken?: string };
}

async function login(c: TestContext, email: string, password = strongPassword) {
  const res = await call(c, {
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, captcha: await c.captcha() },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as { id: string; authToken: string; refreshToken: string };
}

const professional = (email: string) => ({
  email,
  name: 'Dana Scully',
  role: 'professional',
  mobilePhone: '+15550111',
  license: { number: 'MD-12345', state: 'MD', expiryDate: '2030-06-30' },
  specialty: 'Radiology',
  hospital: 'Georgetown Hospital',
  position: 'Attending',
});

async function adminToken(c: TestContext) {
  const password = 'Adm1n!Passw0rd';
  await c.services.users.insertIfEmailFree({
    email: c.services.config.adminEmail,
    emailNormalized: c.services.config.adminEmail,
    passwordHash: await hashPassword(password),
    name: 'Administrator',
    role: 'admin',
    accountStatus: 'active',
    emailVerifiedAt: new Date(),
  });
  return (await login(c, c.services.config.adminEmail, password)).authToken;
}

/** Signs in once more and proves the token is answered from memory from then on. */
async function cachedSession(c: TestContext, email: string) {
  const s = await login(c, email);
  expect((await me(c, s.authToken)).statusCode).toBe(200);
  const before = c.services.sessionCache.stats().hits;
  expect((await me(c, s.authToken)).statusCode).toBe(200);
  expect(c.services.sessionCache.stats().hits).toBeGreaterThan(before);
  return s;
}

describe('session cache, one process', () => {
  let ctx: TestContext;
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);

  beforeAll(async () => {
    ctx = await createTestContext({}, { now });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('answers repeated requests from memory, and logout ends the session at once', async () => {
    await register(ctx, 'cache-logout@example.com');
    const s = await cachedSession(ctx, 'cache-logout@example.com');
    const out = await call(ctx, { method: 'POST', url: '/api/auth/logout', headers: bearer(s.authToken) });
    expect(out.statusCode).toBe(200);
    expect((await me(ctx, s.authToken)).statusCode).toBe(401);
  });

  it('revoking one session, or all the others, and refresh rotation take effect at once', async () => {
    await register(ctx, 'cache-revoke@example.com');
    const a = await cachedSession(ctx, 'cache-revoke@example.com');
    const b = await cachedSession(ctx, 'cache-revoke@example.com');
    const c = await cachedSession(ctx, 'cache-revoke@example.com');
    const list = await call(ctx, { method: 'GET', url: '/api/auth/sessions', headers: bearer(a.authToken) });
    const ids = (list.json().data as Array<{ id: string; current: boolean }>).filter((x) => !x.current);
    const [row] = await ctx.services.database.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(eq(sessions.authTokenHash, hashToken(b.authToken)));
    expect(ids.map((x) => x.id)).toContain(row!.id);
    const one = await call(ctx, {
      method: 'DELETE',
      url: `/api/auth/sessions/${row!.id}`,
      headers: bearer(a.authToken),
    });
    expect(one.statusCode).toBe(200);
    expect((await me(ctx, b.authToken)).statusCode).toBe(401);
    expect((await me(ctx, c.authToken)).statusCode).toBe(200);

    const others = await call(ctx, {
      method: 'POST',
      url: '/api/auth/sessions/revoke-others',
      headers: bearer(a.authToken),
    });
    expect(others.statusCode).toBe(200);
    expect((await me(ctx, c.authToken)).statusCode).toBe(401);
    expect((await me(ctx, a.authToken)).statusCode).toBe(200);

    const refreshed = await call(ctx, {
      method: 'POST',
      url: '/api/auth/refresh',
      payload: { refreshToken: a.refreshToken },
    });
    expect(refreshed.statusCode).toBe(200);
    expect((await me(ctx, a.authToken)).statusCode).toBe(401);
    expect((await me(ctx, refreshed.json().authToken)).statusCode).toBe(200);
  });

  it('an account status change by an admin reaches cached sessions at once', async () => {
    const admin = await adminToken(ctx);
    const applicant = await register(ctx, 'cache-pro@example.com', professional('cache-pro@example.com'));
    const s = await cachedSession(ctx, 'cache-pro@example.com');
    const put = (token: string) =>
      call(ctx, {
        method: 'PUT',
        url: `/api/users/${applicant.id}`,
        headers: bearer(token),
        payload: { name: 'Dana K. Scully' },
      });
    expect((await put(s.authToken)).statusCode).toBe(403);
    const approve = await call(ctx, {
      method: 'POST',
      url: `/api/admin/professionals/${applicant.id}/approve`,
      headers: bearer(admin),
    });
    expect(approve.statusCode).toBe(200);
    expect((await put(s.authToken)).statusCode).toBe(200);
    expect((await me(ctx, s.authToken)).json()).toMatchObject({
      accountStatus: 'active',
      name: 'Dana K. Scully',
    });
    const reject = await call(ctx, {
      method: 'POST',
      url: `/api/admin/professionals/${applicant.id}/reject`,
      headers: bearer(admin),
      payload: { reason: 'Licence expired' },
    });
    expect(reject.statusCode).toBe(200);
    const after = await put(s.authToken);
    expect(after.statusCode).toBe(403);
    expect(after.json().code).toBe('ACCOUNT_INACTIVE');
  });

  it('a change written behind the app’s back (a script, another process) reaches the cache', async () => {
    // No writer here evicts or waits for the echo: only the trigger's notification tells the cache
    // (PGlite: before the statement returns; PostgreSQL: settled() is one round trip on the
    // listening connection, which delivers pending notifications before its answer).
    await register(ctx, 'cache-sql@example.com');
    const s = await cachedSession(ctx, 'cache-sql@example.com');
    await ctx.services.database.sql.executeSql(
      `update sessions set revoked_at = now(), revoked_reason = 'admin' where auth_token_hash = $1`,
      [hashToken(s.authToken)],
    );
    await ctx.services.changes.settled();
    expect((await me(ctx, s.authToken)).statusCode).toBe(401);
    const t = await cachedSession(ctx, 'cache-sql@example.com');
    await ctx.services.database.sql.executeSql(`update users set account_status = 'rejected' where id = $1`, [
      t.id,
    ]);
    await ctx.services.changes.settled();
    expect((await me(ctx, t.authToken)).json().accountStatus).toBe('rejected');
    const u = await cachedSession(ctx, 'cache-sql@example.com');
    await ctx.services.database.sql.executeSql(`delete from sessions where auth_token_hash = $1`, [
      hashToken(u.authToken),
    ]);
    await ctx.services.changes.settled();
    expect((await me(ctx, u.authToken)).statusCode).toBe(401);
  });

  it('ends cached sessions on the idle timeout and the absolute lifetime', async () => {
    const idleMs = ctx.services.config.sessionIdleMs;
    await register(ctx, 'cache-idle@example.com');
    const idle = await cachedSession(ctx, 'cache-idle@example.com');
    offsetMs += idleMs + 1_000;
    expect((await me(ctx, idle.authToken)).statusCode).toBe(401);

    // Activity another process recorded (not announced) keeps the session: the stored row decides.
    const busy = await cachedSession(ctx, 'cache-idle@example.com');
    offsetMs += idleMs - 60_000;
    await ctx.services.database.db
      .update(sessions)
      .set({ lastSeenAt: now() })
      .where(eq(sessions.authTokenHash, hashToken(busy.authToken)));
    offsetMs += 2 * 60_000;
    expect((await me(ctx, busy.authToken)).statusCode).toBe(200);

    // Active all along, the session still ends at its absolute lifetime.
    const step = idleMs / 2;
    const long = await cachedSession(ctx, 'cache-idle@example.com');
    const issuedAt = now().getTime();
    let lastOk = issuedAt;
    for (;;) {
      offsetMs += step;
      if ((await me(ctx, long.authToken)).statusCode !== 200) break;
      lastOk = now().getTime();
      expect(lastOk).toBeLessThan(issuedAt + ctx.services.config.sessionMaxMs);
    }
    expect(lastOk).toBeGreaterThan(issuedAt + ctx.services.config.sessionMaxMs - step - 5_000);
    expect((await me(ctx, long.authToken)).statusCode).toBe(401);
    const [row] = await ctx.services.database.db
      .select({ revokedReason: sessions.revokedReason })
      .from(sessions)
      .where(eq(sessions.authTokenHash, hashToken(long.authToken)));
    expect(row?.revokedReason).toBe('expired');
  });

  it('records activity at most once a minute per session, not on every request', async () => {
    await register(ctx, 'cache-touch@example.com');
    const s = await cachedSession(ctx, 'cache-touch@example.com');
    const lastSeen = async () => {
      const [row] = await ctx.services.database.db
        .select({ lastSeenAt: sessions.lastSeenAt })
        .from(sessions)
        .where(eq(sessions.authTokenHash, hashToken(s.authToken)));
      return row!.lastSeenAt.getTime();
    };
    offsetMs += 2 * 60_000;
    expect((await me(ctx, s.authToken)).statusCode).toBe(200);
    const touched = await lastSeen();
    expect(Math.abs(touched - now().getTime())).toBeLessThan(5_000);
    for (let i = 0; i < 3; i++) {
      offsetMs += 10_000;
      expect((await me(ctx, s.authToken)).statusCode).toBe(200);
    }
    expect(await lastSeen()).toBe(touched);
    offsetMs += 40_000;
    expect((await me(ctx, s.authToken)).statusCode).toBe(200);
    expect(await lastSeen()).toBeGreaterThan(touched);
  });
});

describe.skipIf(!process.env.DATABASE_URL)(
  'session and list caches, two app instances on one database',
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

    // Another instance drops its cached entry when the change's notification reaches it, which
    // PostgreSQL sends at commit; `settled()` waits for that delivery (one round trip on its
    // listening connection) so the next request is not raced against the socket read.
    it('a session ended on one instance is refused by the other on the next request', async () => {
      await register(a, 'two-logout@example.com');
      const s = await cachedSession(b, 'two-logout@example.com');
      expect((await me(a, s.authToken)).statusCode).toBe(200);
      const out = await call(a, { method: 'POST', url: '/api/auth/logout', headers: bearer(s.authToken) });
      expect(out.statusCode).toBe(200);
      await b.services.changes.settled();
      expect((await me(b, s.authToken)).statusCode).toBe(401);

      const x = await cachedSession(a, 'two-logout@example.com');
      const y = await cachedSession(a, 'two-logout@example.com');
      await cachedSession(b, 'two-logout@example.com');
      expect((await me(b, x.authToken)).statusCode).toBe(200);
      expect((await me(b, x.authToken)).statusCode).toBe(200);
      const others = await call(b, {
        method: 'POST',
        url: '/api/auth/sessions/revoke-others',
        headers: bearer(y.authToken),
      });
      expect(others.statusCode).toBe(200);
      await a.services.changes.settled();
      expect((await me(a, x.authToken)).statusCode).toBe(401);
      expect((await me(b, x.authToken)).statusCode).toBe(401);
      expect((await me(a, y.authToken)).statusCode).toBe(200);

      const refreshed = await call(a, {
        method: 'POST',
        url: '/api/auth/refresh',
        payload: { refreshToken: y.refreshToken },
      });
      expect(refreshed.statusCode).toBe(200);
      await b.services.changes.settled();
      expect((await me(b, y.authToken)).statusCode).toBe(401);
      expect((await me(b, refreshed.json().authToken)).statusCode).toBe(200);
    });

    it('an admin action on one instance reaches sessions cached by the other', async () => {
      const admin = await adminToken(a);
      const applicant = await register(a, 'two-pro@example.com', professional('two-pro@example.com'));
      const s = await cachedSession(b, 'two-pro@example.com');
      expect((await me(b, s.authToken)).json().accountStatus).toBe('pending');
      const approve = await call(a, {
        method: 'POST',
        url: `/api/admin/professionals/${applicant.id}/approve`,
        headers: bearer(admin),
      });
      expect(approve.statusCode).toBe(200);
      await b.services.changes.settled();
      expect((await me(b, s.authToken)).json().accountStatus).toBe('active');
    });

    it('a studies list cached by one instance changes as soon as the other writes', async () => {
      const owner = await register(a, 'two-list@example.com');
      const token = owner.authToken!;
      const list = (c: TestContext) =>
        call(c, { method: 'GET', url: `/api/studies/user/${owner.id}`, headers: bearer(token) });
      expect((await list(b)).json().data).toEqual([]);
      expect((await list(b)).json().data).toEqual([]);
      // As the ingest job would, in a worker process.
      const [study] = await a.services.database.db
        .insert(studies)
        .values({
          ownerId: owner.id,
          studyInstanceUid: '2.25.4242',
          patientName: 'Test^Two',
          modalities: ['CT'],
        })
        .returning();
      // B hears of it through the notification: within moments, and certainly once its listening
      // connection has answered one query.
      await b.services.changes.settled();
      const afterInsert = await list(b);
      expect(afterInsert.json().data.map((x: { id: string }) => x.id)).toEqual([study!.id]);
      const del = await call(a, {
        method: 'DELETE',
        url: `/api/studies/${owner.id}/${study!.id}`,
        headers: bearer(token),
      });
      expect(del.statusCode).toBeLessThan(300);
      await b.services.changes.settled();
      expect((await list(b)).json().data).toEqual([]);
    });

    it('while notifications cannot arrive nothing is served from memory, and caches start over', async () => {
      await register(a, 'two-gap@example.com');
      const s = await cachedSession(b, 'two-gap@example.com');
      await b.services.database.sql.executeSql(
        `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = $1 and datname = current_database() and pid <> pg_backend_pid()`,
        [FEED_APPLICATION_NAME],
      );
      await eventually(async () => !b.services.changes.live || undefined, 5_000);
      // Still served meanwhile, from the database: nothing read now may be kept.
      expect((await me(b, s.authToken)).statusCode).toBe(200);
      expect((await me(b, s.authToken)).statusCode).toBe(200);
      // Written while no one listens: this notification is lost, yet the session is refused.
      await a.services.database.sql.executeSql(
        `update sessions set revoked_at = now(), revoked_reason = 'admin' where auth_token_hash = $1`,
        [hashToken(s.authToken)],
      );
      expect((await me(b, s.authToken)).statusCode).toBe(401);
      await eventually(async () => b.services.changes.live || undefined, 10_000);
      expect((await me(b, s.authToken)).statusCode).toBe(401);
      await cachedSession(b, 'two-gap@example.com');
    });
  },
);
