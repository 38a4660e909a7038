import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { PASSWORD_MESSAGE } from '@mi/contracts/rules';
import { auditEvents, mailOutbox, users } from '../../../src/db/schema/index';
import {
  cookieHeader,
  createTestContext,
  eventually,
  registerPatient,
  strongPassword,
  type TestContext,
} from '../../helpers/test-app';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

const login = async (email: string, password: string, captcha?: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, captcha: captcha ?? (await ctx.captcha()) },
  });

describe('registration', () => {
  it('creates a patient, signs them in with httpOnly SameSite=Strict cookies and returns tokens', async () => {
    const res = await registerPatient(ctx, 'ada@example.com');
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.message).toBe('Registration successful');
    expect(body.data.authToken).toMatch(/^[\w-]{40,}$/);
    const auth = res.cookies.find((c) => c.name === 'authToken');
    const refresh = res.cookies.find((c) => c.name === 'refreshToken');
    for (const c of [auth, refresh]) {
      expect(c).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', maxAge: 3600 });
    }
    expect(auth?.value).toBe(body.data.authToken);

    const me = await ctx.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { cookie: cookieHeader(res) },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      role: 'patient',
      mobilePhone: '+15550100',
      mfaEnabled: false,
      emailNotifications: true,
      smsNotifications: false,
      welcomeModalShown: false,
      shareMedicalData: false,
      uploadLimits: { currentStorageGB: 0, maxStorageGB: 10 },
    });
    expect(me.json()).not.toHaveProperty('passwordHash');

    const [row] = await ctx.services.database.db
      .select()
      .from(users)
      .where(eq(users.emailNormalized, 'ada@example.com'));
    expect(row?.termsAcceptedAt).toBeInstanceOf(Date);
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('refuses a weak password with the spec message', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: {
        email: 'weak@example.com',
        password: 'password',
        name: 'W',
        acceptTerms: true,
        captcha: await ctx.captcha(),
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain(PASSWORD_MESSAGE);
    expect(res.json().code).toBe('VALIDATION_ERROR');
  });

  it('never lets the body ask for the admin role', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: {
        email: 'sneaky@example.com',
        password: strongPassword,
        name: 'S',
        role: 'admin',
        acceptTerms: true,
        captcha: await ctx.captcha(),
      },
    });
    expect(res.statusCode).toBe(400);
    const [row] = await ctx.services.database.db
      .select()
      .from(users)
      .where(eq(users.emailNormalized, 'sneaky@example.com'));
    expect(row).toBeUndefined();
  });

  it('requires accepting the terms', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: {
        email: 'terms@example.com',
        password: strongPassword,
        name: 'T',
        acceptTerms: false,
        captcha: await ctx.captcha(),
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('You must accept the terms and conditions');
  });

  it('stores a professional as pending and does not sign them in', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: {
        email: 'doc@example.com',
        password: strongPassword,
        name: 'Dr Who',
        role: 'professional',
        mobilePhone: '+15550101',
        license: { number: 'MD-1', state: 'CA', expiryDate: '2099-01-01' },
        specialty: 'Radiology',
        hospital: 'General',
        acceptTerms: true,
        captcha: await ctx.captcha(),
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.authToken).toBeUndefined();
    expect(res.cookies).toHaveLength(0);
    const [row] = await ctx.services.database.db
      .select()
      .from(users)
      .where(eq(users.emailNormalized, 'doc@example.com'));
    expect(row).toMatchObject({ role: 'professional', accountStatus: 'pending' });
  });

  it('treats a duplicate email in any letter case as a generic failure, creates nothing and emails the owner', async () => {
    await registerPatient(ctx, 'owner@example.com');
    const countBefore = await ctx.services.users.count();
    const dup = await registerPatient(ctx, 'OWNER@Example.COM');
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toEqual({
      error: 'Registration failed. Please try again.',
      code: 'REGISTRATION_FAILED',
    });
    expect(dup.cookies).toHaveLength(0);
    expect(JSON.stringify(dup.json())).not.toMatch(/exist|already|registered/i);
    expect(await ctx.services.users.count()).toBe(countBefore);
    const notice = await eventually(async () => {
      const rows = await ctx.services.database.db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.to, 'owner@example.com'));
      return rows.find((r) => r.subject === 'Someone tried to register with your email');
    });
    expect(notice.text).toContain('/forgot-password');
  });

  it('requires a solved captcha and refuses a replayed one', async () => {
    const noCaptcha = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: 'bot@example.com', password: strongPassword, name: 'B', acceptTerms: true },
    });
    expect(noCaptcha.statusCode).toBe(400);
    expect(noCaptcha.json()).toEqual({
      error: 'reCAPTCHA verification failed. Please try again.',
      code: 'CAPTCHA_FAILED',
    });

    const solved = await ctx.captcha();
    const first = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: {
        email: 'human@example.com',
        password: strongPassword,
        name: 'H',
        acceptTerms: true,
        captcha: solved,
      },
    });
    expect(first.statusCode).toBe(201);
    const replay = await login('human@example.com', strongPassword, solved);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().code).toBe('CAPTCHA_FAILED');
  });
});

describe('login, sessions and logout', () => {
  it('gives the same answer for a wrong password and an unknown email', async () => {
    await registerPatient(ctx, 'grace@example.com');
    const wrong = await login('grace@example.com', 'Wrong!Pass1');
    const unknown = await login('nobody@example.com', 'Wrong!Pass1');
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: 'Invalid email or password. Please try again.',
        code: 'INVALID_CREDENTIALS',
      });
      expect(res.cookies).toHaveLength(0);
    }
  });

  it('signs in with any letter case, and the bearer token works for API clients', async () => {
    const res = await login('GRACE@example.com', strongPassword);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      message: 'Logged in Successfully',
      data: { email: 'grace@example.com', mfaEnabled: false },
    });
    const me = await ctx.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${res.json().data.authToken}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().email).toBe('grace@example.com');
  });

  it('rejects requests without a session', async () => {
    const me = await ctx.app.inject({ method: 'GET', url: '/api/auth/me' });
    expect(me.statusCode).toBe(401);
    const forged = await ctx.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: 'Bearer forged-token' },
    });
    expect(forged.statusCode).toBe(401);
  });

  it('rotates tokens on refresh; the old refresh and auth tokens stop working', async () => {
    const res = await login('grace@example.com', strongPassword);
    const { authToken, refreshToken } = res.json().data;
    const refreshed = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      payload: { refreshToken },
    });
    expect(refreshed.statusCode).toBe(200);
    const next = refreshed.json();
    expect(next.authToken).not.toBe(authToken);
    const replay = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      payload: { refreshToken },
    });
    expect(replay.statusCode).toBe(401);
    const oldMe = await ctx.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${authToken}` },
    });
    expect(oldMe.statusCode).toBe(401);
    const newMe = await ctx.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${next.authToken}` },
    });
    expect(newMe.statusCode).toBe(200);
    // The cookie flow rotates too.
    const viaCookie = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      headers: { cookie: `refreshToken=${next.refreshToken}` },
    });
    expect(viaCookie.json()).toMatchObject({ message: 'Session refreshed' });
    expect(viaCookie.statusCode).toBe(200);
    expect(viaCookie.cookies.map((c) => c.name).sort()).toEqual(['authToken', 'refreshToken']);
  });

  it('logout revokes the session on the server and clears the cookies', async () => {
    const res = await login('grace@example.com', strongPassword);
    const cookie = cookieHeader(res);
    const out = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(out.json()).toEqual({ message: 'Logged out successfully' });
    expect(out.cookies.find((c) => c.name === 'authToken')?.value).toBe('');
    const me = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });
    expect(me.statusCode).toBe(401);
  });

  it('records auth events in the append-only audit table', async () => {
    const rows = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'auth.login'));
    expect(rows.some((r) => r.outcome === 'success' && r.requestId)).toBe(true);
    expect(rows.some((r) => r.outcome === 'failure')).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(strongPassword);
    const logout = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'auth.logout'));
    expect(logout.length).toBeGreaterThan(0);
    await expect(ctx.services.database.db.update(auditEvents).set({ outcome: 'success' })).rejects.toThrow();
    await expect(ctx.services.database.db.delete(auditEvents)).rejects.toThrow();
    await expect(ctx.services.database.db.execute(sql`truncate audit_events`)).rejects.toThrow();
  });
});

describe('session timeouts', () => {
  it('ends a session that has been idle longer than the idle timeout', async () => {
    const short = await createTestContext({ SESSION_IDLE_MINUTES: '0.02' }); // 1.2 s
    try {
      const reg = await registerPatient(short, 'idle@example.com');
      const bearer = { authorization: `Bearer ${reg.json().data.authToken}` };
      expect(
        (await short.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer })).statusCode,
      ).toBe(200);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(
        (await short.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer })).statusCode,
      ).toBe(401);
    } finally {
      await short.close();
    }
  });
});
