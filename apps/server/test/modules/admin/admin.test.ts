import type { InjectOptions } from 'fastify';
import { and, desc, eq, like } from 'drizzle-orm';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, mailOutbox, sessions, users } from '../../../src/db/schema/index';
import { defineJob } from '../../../src/jobs/queue';
import { hashPassword } from '../../../src/modules/auth/password';
import {
  createTestContext,
  eventually,
  registerPatient,
  strongPassword,
  type TestContext,
} from '../../helpers/test-app';

let ctx: TestContext;
/** The test clock: moved forward instead of waiting. */
let offsetMs = 0;
const ADMIN_EMAIL = 'root-admin@example.com';
const ADMIN_PASSWORD = 'Adm1n!Passw0rd';
let admin: { id: string; token: string };

beforeAll(async () => {
  ctx = await createTestContext({}, { now: () => new Date(Date.now() + offsetMs) });
  const created = await ctx.services.users.insertIfEmailFree({
    email: ADMIN_EMAIL,
    emailNormalized: ADMIN_EMAIL,
    passwordHash: await hashPassword(ADMIN_PASSWORD),
    name: 'Administrator',
    role: 'admin',
    accountStatus: 'active',
    emailVerifiedAt: new Date(),
  });
  admin = { id: created!.id, token: await token(ADMIN_EMAIL, ADMIN_PASSWORD) };
}, 60_000);
afterAll(async () => {
  await ctx?.close();
});

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const call = (opts: InjectOptions) => ctx.app.inject(opts);
const asAdmin = (opts: InjectOptions, t = admin.token) =>
  call({ ...opts, headers: { ...bearer(t), ...(opts.headers ?? {}) } });

async function login(email: string, password = strongPassword) {
  return call({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, captcha: await ctx.captcha(email) },
  });
}
async function token(email: string, password = strongPassword): Promise<string> {
  const res = await login(email, password);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.authToken as string;
}
async function patient(email: string) {
  const res = await registerPatient(ctx, email);
  expect(res.statusCode, res.body).toBe(201);
  return { id: res.json().data.id as string, token: res.json().data.authToken as string };
}
async function auditRows(action: string, targetId?: string) {
  return ctx.services.database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), targetId ? eq(auditEvents.targetId, targetId) : undefined))
    .orderBy(desc(auditEvents.id));
}
async function latestMail(to: string, subject: string) {
  return eventually(async () => {
    const [row] = await ctx.services.database.db
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.to, to), like(mailOutbox.subject, `%${subject}%`)))
      .orderBy(desc(mailOutbox.createdAt))
      .limit(1);
    return row;
  });
}

async function codeMails(to: string) {
  return ctx.services.database.db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.to, to), like(mailOutbox.text, '%verification code is%')))
    .orderBy(desc(mailOutbox.createdAt));
}

describe('admin console', () => {
  it('answers 404 on every admin route to patients and to anonymous callers', async () => {
    const p = await patient('not-admin@example.com');
    const id = p.id;
    const routes: Array<[InjectOptions['method'], string, unknown?]> = [
      ['GET', '/api/admin/users'],
      ['GET', `/api/admin/users/${id}`],
      ['POST', `/api/admin/users/${id}/disable`, {}],
      ['POST', `/api/admin/users/${id}/enable`],
      ['POST', `/api/admin/users/${id}/reset-mfa`],
      ['PUT', `/api/admin/users/${id}/quota`, { maxStorageGB: 1 }],
      ['GET', '/api/admin/audit'],
      ['GET', '/api/admin/audit/export'],
      ['GET', '/api/admin/health'],
      ['POST', '/api/admin/jobs/00000000-0000-0000-0000-000000000000/retry'],
      ['POST', '/api/admin/reauth', { password: strongPassword }],
      ['GET', '/api/admin/outbox'],
      ['GET', '/api/admin/jobs/failed'],
    ];
    for (const [method, url, payload] of routes) {
      const asPatient = await call({ method, url, headers: bearer(p.token), payload: payload as object });
      expect(asPatient.statusCode, `${method} ${url}`).toBe(404);
      const anonymous = await call({ method, url, payload: payload as object });
      expect(anonymous.statusCode, `${method} ${url}`).toBe(404);
    }
    // The patient's own account is untouched.
    expect((await ctx.services.users.findById(id))?.accountStatus).toBe('active');
  });

  it('searches accounts by name or email and shows role, status, sign-in, second factor and storage', async () => {
    const p = await patient('searchable.person@example.com');
    const res = await asAdmin({ method: 'GET', url: '/api/admin/users?q=SEARCHABLE.person' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(1);
    expect(body.data[0]).toMatchObject({
      id: p.id,
      email: 'searchable.person@example.com',
      role: 'patient',
      accountStatus: 'active',
      mfaEnabled: false,
      usedStorageBytes: 0,
      maxStorageBytes: ctx.services.config.defaultMaxStorageGB * 1024 ** 3,
      quotaOverride: false,
    });
    expect(body.data[0].lastSignInAt).not.toBeNull();
    // LIKE wildcards are searched for literally.
    const wild = await asAdmin({ method: 'GET', url: '/api/admin/users?q=%25' });
    expect(wild.json().total).toBe(0);
    const one = await asAdmin({ method: 'GET', url: `/api/admin/users/${p.id}` });
    expect(one.json().data.email).toBe('searchable.person@example.com');
    expect(await auditRows('admin.user.read', p.id)).toHaveLength(1);
    expect((await auditRows('admin.users.search')).length).toBeGreaterThan(0);
    const missing = await asAdmin({ method: 'GET', url: '/api/admin/users/not-a-uuid' });
    expect(missing.statusCode).toBe(404);
  });

  it('disables an account: sign-in refused, sessions end at once; enabling lets them back in', async () => {
    const p = await patient('to-disable@example.com');
    const other = await token('to-disable@example.com');
    const disabled = await asAdmin({
      method: 'POST',
      url: `/api/admin/users/${p.id}/disable`,
      payload: { reason: 'Abuse report' },
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect(disabled.json().data.accountStatus).toBe('disabled');
    for (const t of [p.token, other]) {
      const me = await call({ method: 'GET', url: '/api/auth/me', headers: bearer(t) });
      expect(me.statusCode).toBe(401);
    }
    const live = await ctx.services.database.db.select().from(sessions).where(eq(sessions.userId, p.id));
    expect(live.every((s) => s.revokedAt !== null && s.revokedReason === 'account_disabled')).toBe(true);
    const refused = await login('to-disable@example.com');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
    const [audited] = await auditRows('user.disable', p.id);
    expect(audited).toMatchObject({ actorId: admin.id, outcome: 'success' });
    expect(audited?.details).toMatchObject({ from: 'active', sessionsEnded: 2, reason: 'Abuse report' });

    const enabled = await asAdmin({ method: 'POST', url: `/api/admin/users/${p.id}/enable` });
    expect(enabled.json().data.accountStatus).toBe('active');
    expect((await login('to-disable@example.com')).statusCode).toBe(200);
    expect(await auditRows('user.enable', p.id)).toHaveLength(1);

    const self = await asAdmin({ method: 'POST', url: `/api/admin/users/${admin.id}/disable` });
    expect(self.statusCode).toBe(400);
  });

  it("resets a user's second factor and sets their storage quota", async () => {
    const p = await patient('lost-phone@example.com');
    const on = await call({
      method: 'PUT',
      url: `/api/users/${p.id}`,
      headers: bearer(p.token),
      payload: { mfaEnabled: true, mfaMethod: 'email' },
    });
    expect(on.statusCode, on.body).toBe(200);
    expect((await login('lost-phone@example.com')).json().data.mfaEnabled).toBe(true);

    const reset = await asAdmin({ method: 'POST', url: `/api/admin/users/${p.id}/reset-mfa` });
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().data).toMatchObject({ mfaEnabled: false, mfaMethod: null });
    const after = await login('lost-phone@example.com');
    expect(after.json().data).toMatchObject({ mfaEnabled: false });
    expect(after.json().data.authToken).toBeTruthy();
    expect(await auditRows('user.mfa_reset', p.id)).toHaveLength(1);

    const quota = await asAdmin({
      method: 'PUT',
      url: `/api/admin/users/${p.id}/quota`,
      payload: { maxStorageGB: 2.5 },
    });
    expect(quota.statusCode, quota.body).toBe(200);
    expect(quota.json().data).toMatchObject({ maxStorageBytes: 2.5 * 1024 ** 3, quotaOverride: true });
    const back = await asAdmin({
      method: 'PUT',
      url: `/api/admin/users/${p.id}/quota`,
      payload: { maxStorageGB: null },
    });
    expect(back.json().data.quotaOverride).toBe(false);
    const bad = await asAdmin({
      method: 'PUT',
      url: `/api/admin/users/${p.id}/quota`,
      payload: { maxStorageGB: -1 },
    });
    expect(bad.statusCode).toBe(400);
    const [changed] = await auditRows('user.quota_change', p.id);
    expect(changed?.details).toMatchObject({ from: 2.5 * 1024 ** 3, to: null });
  });

  it('needs a recent sign-in for changes: 403 REAUTH_REQUIRED, then the password signs in again', async () => {
    const p = await patient('quota-later@example.com');
    const t = await token(ADMIN_EMAIL, ADMIN_PASSWORD);
    offsetMs += 16 * 60_000;
    try {
      const change = () =>
        asAdmin({ method: 'PUT', url: `/api/admin/users/${p.id}/quota`, payload: { maxStorageGB: 3 } }, t);
      const stale = await change();
      expect(stale.statusCode).toBe(403);
      expect(stale.json().code).toBe('REAUTH_REQUIRED');
      expect((await auditRows('user.quota_change'))[0]).toMatchObject({
        outcome: 'denied',
        actorId: admin.id,
      });
      // Reading is still allowed.
      expect((await asAdmin({ method: 'GET', url: '/api/admin/users' }, t)).statusCode).toBe(200);

      const wrong = await asAdmin(
        { method: 'POST', url: '/api/admin/reauth', payload: { password: 'nope' } },
        t,
      );
      expect(wrong.statusCode).toBe(401);
      const again = await asAdmin(
        { method: 'POST', url: '/api/admin/reauth', payload: { password: ADMIN_PASSWORD } },
        t,
      );
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json().status).toBe('ok');
      expect(again.cookies.some((c) => c.name === 'authToken')).toBe(true);
      const fresh = again.json().authToken as string;
      const done = await asAdmin(
        { method: 'PUT', url: `/api/admin/users/${p.id}/quota`, payload: { maxStorageGB: 3 } },
        fresh,
      );
      expect(done.statusCode, done.body).toBe(200);
      // The session that asked was replaced.
      expect((await call({ method: 'GET', url: '/api/auth/me', headers: bearer(t) })).statusCode).toBe(401);
    } finally {
      offsetMs -= 16 * 60_000;
    }
  });

  it('the same rule holds for provider directory and help article changes', async () => {
    const t = await token(ADMIN_EMAIL, ADMIN_PASSWORD);
    offsetMs += 16 * 60_000;
    try {
      const list = await asAdmin({ method: 'GET', url: '/api/admin/providers' }, t);
      expect(list.statusCode).toBe(200);
      const providerId = (list.json().data as Array<{ id: string }>)[0]!.id;
      const retire = await asAdmin({ method: 'POST', url: `/api/admin/providers/${providerId}/retire` }, t);
      expect(retire.statusCode).toBe(403);
      expect(retire.json().code).toBe('REAUTH_REQUIRED');
      const article = await asAdmin(
        {
          method: 'POST',
          url: '/api/admin/kb',
          payload: {
            title: 'Stale session',
            description: 'Should not be saved',
            content: '<p>x</p>',
            category: 'Getting Started',
            featured: false,
            published: false,
          },
        },
        t,
      );
      expect(article.statusCode).toBe(403);
      expect(article.json().code).toBe('REAUTH_REQUIRED');
      expect((await auditRows('provider.admin_change'))[0]).toMatchObject({ outcome: 'denied' });
      expect((await auditRows('help.admin_change'))[0]).toMatchObject({ outcome: 'denied' });
    } finally {
      offsetMs -= 16 * 60_000;
    }
  });

  it('with a second factor, signing in again asks for the code too', async () => {
    const email = 'mfa-admin@example.com';
    const password = 'Adm1n!Second';
    const created = await ctx.services.users.insertIfEmailFree({
      email,
      emailNormalized: email,
      passwordHash: await hashPassword(password),
      name: 'Second Admin',
      role: 'admin',
      accountStatus: 'active',
      emailVerifiedAt: new Date(),
      mfaEnabled: true,
      mfaMethod: 'email',
    });
    const first = await login(email, password);
    const mfaToken = first.json().data.mfaToken as string;
    const code1 = /verification code is (\d{6})/.exec((await latestMail(email, 'code')).text)?.[1];
    const verified = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      payload: { mfaSecret: code1, email, userId: created!.id, mfaToken },
    });
    expect(verified.statusCode, verified.body).toBe(200);
    const t = verified.json().authToken as string;
    offsetMs += 20 * 60_000;
    try {
      const stale = await asAdmin({ method: 'POST', url: `/api/admin/users/${admin.id}/reset-mfa` }, t);
      expect(stale.json().code).toBe('REAUTH_REQUIRED');
      const codesBefore = (await codeMails(email)).length;
      const step1 = await asAdmin({ method: 'POST', url: '/api/admin/reauth', payload: { password } }, t);
      expect(step1.statusCode, step1.body).toBe(200);
      expect(step1.json()).toMatchObject({ status: 'mfa', method: 'email' });
      const mail = await eventually(async () => {
        const all = await codeMails(email);
        return all.length > codesBefore ? all[0] : undefined;
      });
      const code = /verification code is (\d{6})/.exec(mail.text)?.[1] ?? '';
      const bad = await asAdmin(
        {
          method: 'POST',
          url: '/api/admin/reauth',
          payload: { mfaToken: step1.json().mfaToken, code: '000000' },
        },
        t,
      );
      expect(bad.statusCode).toBe(401);
      const step2 = await asAdmin(
        { method: 'POST', url: '/api/admin/reauth', payload: { mfaToken: step1.json().mfaToken, code } },
        t,
      );
      expect(step2.statusCode, step2.body).toBe(200);
      expect(step2.json().status).toBe('ok');
      const ok = await asAdmin({ method: 'GET', url: '/api/admin/health' }, step2.json().authToken as string);
      expect(ok.statusCode).toBe(200);
    } finally {
      offsetMs -= 20 * 60_000;
    }
  });

  it('pages through the audit log by user, action and dates, and exports it as CSV', async () => {
    const p = await patient('audited@example.com');
    for (const gb of [1, 2, 3])
      await asAdmin({ method: 'PUT', url: `/api/admin/users/${p.id}/quota`, payload: { maxStorageGB: gb } });
    const page1 = await asAdmin({
      method: 'GET',
      url: `/api/admin/audit?userId=${p.id}&action=user.quota&limit=2`,
    });
    expect(page1.statusCode, page1.body).toBe(200);
    expect(page1.json().data).toHaveLength(2);
    expect(page1.json().hasMore).toBe(true);
    expect(page1.json().data[0].details).toMatchObject({ to: 3 * 1024 ** 3 });
    const page2 = await asAdmin({
      method: 'GET',
      url: `/api/admin/audit?userId=${p.id}&action=user.quota&limit=2&page=2`,
    });
    expect(page2.json()).toMatchObject({ hasMore: false });
    expect(page2.json().data).toHaveLength(1);
    // The user as actor: their registration.
    const own = await asAdmin({ method: 'GET', url: `/api/admin/audit?userId=${p.id}&action=auth.register` });
    expect(own.json().data).toHaveLength(1);
    const future = new Date(Date.now() + 3600_000).toISOString();
    const none = await asAdmin({
      method: 'GET',
      url: `/api/admin/audit?userId=${p.id}&from=${encodeURIComponent(future)}`,
    });
    expect(none.json().data).toHaveLength(0);
    const badAction = await asAdmin({ method: 'GET', url: "/api/admin/audit?action=x'%20or%201=1" });
    expect(badAction.statusCode).toBe(400);

    const csv = await asAdmin({ method: 'GET', url: `/api/admin/audit/export?userId=${p.id}` });
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('attachment');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('id,at,actorId,actorRole,action,targetType,targetId,outcome,ip,details');
    expect(lines.filter((l) => l.includes('user.quota_change'))).toHaveLength(3);
    expect(lines.some((l) => l.includes('auth.register'))).toBe(true);
    expect(await auditRows('admin.audit.export')).toHaveLength(1);
  });

  it('shows health (database, storage, queue depth, disk) and retries a failed job', async () => {
    const health = await asAdmin({ method: 'GET', url: '/api/admin/health' });
    expect(health.statusCode, health.body).toBe(200);
    expect(health.json()).toMatchObject({
      status: 'ok',
      database: { ok: true },
      storage: { ok: true },
      queue: { ok: true },
    });
    expect(typeof health.json().queue.depth).toBe('number');
    expect(health.json().disk.freeBytes).toBeGreaterThan(0);

    let attempts = 0;
    const flaky = defineJob({
      name: 'fails-once-test',
      payload: z.object({ n: z.number() }),
      retry: { limit: 0, delaySeconds: 1 },
      async handler() {
        attempts++;
        if (attempts === 1) throw new Error('first try fails');
      },
    });
    const { startJobQueue } = await import('../../../src/jobs/queue');
    const { createLogger } = await import('../../../src/logger');
    const queue = await startJobQueue(ctx.services.database, createLogger('silent'));
    try {
      await queue.register([flaky]);
      await queue.work();
      const id = await queue.send(flaky, { n: 1 });
      await eventually(async () => (await ctx.services.queue.listFailed()).find((j) => j.id === id), 20_000);
      const retried = await asAdmin({ method: 'POST', url: `/api/admin/jobs/${id}/retry` });
      expect(retried.statusCode, retried.body).toBe(200);
      await eventually(async () => (await ctx.services.queue.stateOf(id!)) === 'completed', 20_000);
      expect(attempts).toBe(2);
      expect(await auditRows('admin.job.retry', id!)).toHaveLength(1);
      const again = await asAdmin({ method: 'POST', url: `/api/admin/jobs/${id}/retry` });
      expect(again.statusCode).toBe(404);
    } finally {
      await queue.stop();
    }
  }, 60_000);

  it('turns a disabled user away from a pending second factor too', async () => {
    const p = await patient('disabled-midway@example.com');
    await call({
      method: 'PUT',
      url: `/api/users/${p.id}`,
      headers: bearer(p.token),
      payload: { mfaEnabled: true, mfaMethod: 'email' },
    });
    const first = await login('disabled-midway@example.com');
    const mfaToken = first.json().data.mfaToken as string;
    const mail = await latestMail('disabled-midway@example.com', 'code');
    const code = /verification code is (\d{6})/.exec(mail.text)?.[1];
    await asAdmin({ method: 'POST', url: `/api/admin/users/${p.id}/disable`, payload: {} });
    const verify = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      payload: { mfaSecret: code, email: 'disabled-midway@example.com', userId: p.id, mfaToken },
    });
    expect(verify.statusCode).toBe(403);
    const [row] = await ctx.services.database.db.select().from(users).where(eq(users.id, p.id));
    expect(row?.accountStatus).toBe('disabled');
  });
});
