import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { and, desc, eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, mailOutbox, sessions, users } from '../../../src/db/schema/index';
import { createTestContext, eventually, strongPassword, type TestContext } from '../../helpers/test-app';

/**
 * Security settings need a fresh proof of identity (modules/auth/fresh-proof.ts): each one is refused
 * (403 REAUTH_REQUIRED) when the session's sign-in and latest proof are older than 5 minutes, and
 * accepted after POST /api/auth/reauthenticate with a password, a second-factor code or Google.
 */

let ctx: TestContext;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const SIX_MINUTES = 6 * 60_000;
/** Past the proof window, well within the session's idle timeout (30 minutes). */
const later = () => {
  offsetMs += SIX_MINUTES;
};
const CLIENT_ID = 'security-test.apps.googleusercontent.com';
let jwksServer: Server;
let googleKey: CryptoKey;

let ipCounter = 0;
const call = (opts: InjectOptions) =>
  ctx.app.inject({ ...opts, remoteAddress: `10.7.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}` });

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  googleKey = pair.privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwksServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const port = (jwksServer.address() as AddressInfo).port;
  ctx = await createTestContext(
    { GOOGLE_CLIENT_ID: CLIENT_ID, GOOGLE_JWKS_URL: `http://127.0.0.1:${port}/certs` },
    { now },
  );
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  await new Promise((resolve) => jwksServer?.close(resolve));
});

interface Account {
  id: string;
  email: string;
  token: string;
  auth: { authorization: string };
}

async function register(email: string): Promise<Account> {
  const res = await call({
    method: 'POST',
    url: '/api/auth/register',
    payload: {
      email,
      password: strongPassword,
      name: 'Pat Smith',
      role: 'patient',
      mobilePhone: '+15550100',
      acceptTerms: true,
      captcha: await ctx.captcha(),
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { id, authToken } = res.json().data as { id: string; authToken: string };
  return { id, email, token: authToken, auth: { authorization: `Bearer ${authToken}` } };
}

/** A second session of the account (another device); with two-factor on, through the emailed code. */
async function signInAgain(a: Account, password = strongPassword): Promise<Account> {
  const res = await call({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email: a.email, password, captcha: await ctx.captcha(a.email) },
  });
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json().data as { authToken?: string; mfaToken?: string };
  if (data.authToken)
    return { ...a, token: data.authToken, auth: { authorization: `Bearer ${data.authToken}` } };
  const mail = await waitForMail(a.email, 'verification code');
  const verify = await call({
    method: 'POST',
    url: '/api/mfa/verify',
    payload: { mfaSecret: codeIn(mail.text), email: a.email, userId: a.id, mfaToken: data.mfaToken },
  });
  expect(verify.statusCode, verify.body).toBe(200);
  const token = verify.json().authToken as string;
  return { ...a, token, auth: { authorization: `Bearer ${token}` } };
}

async function mailsTo(to: string) {
  return ctx.services.database.db
    .select()
    .from(mailOutbox)
    .where(eq(mailOutbox.to, to))
    .orderBy(desc(mailOutbox.createdAt));
}
async function waitForMail(to: string, subject: string, count = 1) {
  return eventually(async () => {
    const rows = (await mailsTo(to)).filter((m) => m.subject.includes(subject));
    return rows.length >= count ? rows[0] : undefined;
  });
}
const codeIn = (text: string) => /verification code is (\d{6})/.exec(text)?.[1] ?? '';

const put = (a: Account, body: Record<string, unknown>) =>
  call({ method: 'PUT', url: `/api/users/${a.id}`, headers: a.auth, payload: body });
const reauth = (a: Account, body: Record<string, unknown>) =>
  call({ method: 'POST', url: '/api/auth/reauthenticate', headers: a.auth, payload: body });
const me = async (a: Account) =>
  (await ctx.services.database.db.select().from(users).where(eq(users.id, a.id)))[0]!;

function expectReauthRequired(res: { statusCode: number; json(): unknown; body: string }) {
  expect(res.statusCode, res.body).toBe(403);
  expect((res.json() as { code: string }).code).toBe('REAUTH_REQUIRED');
  expect((res.json() as { error: string }).error).toMatch(/confirm it is you/);
}

async function withTwoFactor(email: string): Promise<Account> {
  const a = await register(email);
  expect((await put(a, { mfaEnabled: true })).statusCode).toBe(200);
  return a;
}

describe('each security setting', () => {
  /**
   * Each case: an account in the state the setting changes, the request, and what shows it took
   * effect. The request is refused past the window, then accepted after a password re-authentication.
   */
  const cases: Array<{
    name: string;
    setup: (a: Account) => Promise<Record<string, unknown>>;
    request: (a: Account, state: Record<string, unknown>) => InjectOptions;
    changed: (a: Account, state: Record<string, unknown>) => Promise<boolean>;
  }> = [
    {
      name: 'turning two-factor sign-in off',
      setup: async (a) => (await put(a, { mfaEnabled: true }), {}),
      request: (a) => ({ method: 'PUT', url: `/api/users/${a.id}`, payload: { mfaEnabled: false } }),
      changed: async (a) => !(await me(a)).mfaEnabled,
    },
    {
      name: 'changing the two-factor method',
      setup: async (a) => {
        await enrolTotp(a);
        return {};
      },
      request: (a) => ({ method: 'PUT', url: `/api/users/${a.id}`, payload: { mfaMethod: 'email' } }),
      changed: async (a) => (await me(a)).mfaMethod === 'email',
    },
    {
      name: 'starting to set up an authenticator app',
      setup: async () => ({}),
      request: () => ({ method: 'POST', url: '/api/mfa/totp/setup' }),
      changed: async (a) => (await me(a)).totpPendingSecret !== null,
    },
    {
      name: 'confirming an authenticator app (new recovery codes)',
      setup: async (a) => {
        const setup = await call({ method: 'POST', url: '/api/mfa/totp/setup', headers: a.auth });
        return { secret: setup.json().secret as string };
      },
      request: (_a, s) => ({
        method: 'POST',
        url: '/api/mfa/totp/confirm',
        payload: { code: totpCode(s.secret as string) },
      }),
      changed: async (a) => (await me(a)).totpSecret !== null,
    },
    {
      name: 'removing the authenticator app and revoking its recovery codes',
      setup: async (a) => (await enrolTotp(a), {}),
      request: () => ({ method: 'DELETE', url: '/api/mfa/totp' }),
      changed: async (a) => (await me(a)).totpSecret === null,
    },
    {
      name: 'changing the password (without the current one)',
      setup: async (a) => ({ before: (await me(a)).passwordHash }),
      request: () => ({
        method: 'POST',
        url: '/api/auth/password',
        payload: { newPassword: 'N3w!Passw0rd' },
      }),
      changed: async (a, s) => (await me(a)).passwordHash !== s.before,
    },
    {
      name: 'changing the email address',
      setup: async () => ({}),
      request: (a) => ({ method: 'POST', url: '/api/auth/email', payload: { newEmail: `new-${a.email}` } }),
      changed: async (a) => (await mailsTo(`new-${a.email}`)).length > 0,
    },
    {
      name: 'signing out other devices',
      setup: async (a) => ({ other: (await signInAgain(a)).token }),
      request: () => ({ method: 'POST', url: '/api/auth/sessions/revoke-others' }),
      changed: async (a) => (await liveSessions(a)) === 1,
    },
    {
      name: 'signing out one other device',
      setup: async (a) => {
        await signInAgain(a);
        const list = await call({ method: 'GET', url: '/api/auth/sessions', headers: a.auth });
        const other = (list.json().data as Array<{ id: string; current: boolean }>).find((x) => !x.current)!;
        return { other: other.id };
      },
      request: (_a, s) => ({ method: 'DELETE', url: `/api/auth/sessions/${s.other as string}` }),
      changed: async (a) => (await liveSessions(a)) === 1,
    },
  ];

  for (const [i, c] of cases.entries()) {
    it(`${c.name}: refused without a fresh proof, accepted with one`, async () => {
      const a = await register(`setting-${i}@example.com`);
      const state = await c.setup(a);
      later();
      const refused = await call({ ...c.request(a, state), headers: a.auth });
      expectReauthRequired(refused);
      expect(await c.changed(a, state), 'nothing changed').toBe(false);

      const proof = await reauth(a, { password: strongPassword });
      expect(proof.statusCode, proof.body).toBe(200);
      expect(new Date(proof.json().validUntil as string).getTime()).toBeGreaterThan(now().getTime());
      // A confirmation code may be a new one now (authenticator time steps move with the clock).
      const accepted = await call({ ...c.request(a, state), headers: a.auth });
      expect(accepted.statusCode, accepted.body).toBe(200);
      // An email goes out through the send-email job, a moment later on PostgreSQL.
      expect(await eventually(() => c.changed(a, state))).toBe(true);
    });
  }

  it('is accepted within 5 minutes of signing in, without another proof', async () => {
    const a = await withTwoFactor('just-signed-in@example.com');
    const res = await put(a, { mfaEnabled: false });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('refuses again once the proof is older than 5 minutes, and audits the refusal', async () => {
    const a = await withTwoFactor('stale-proof@example.com');
    later();
    expect((await reauth(a, { password: strongPassword })).statusCode).toBe(200);
    later();
    expectReauthRequired(await put(a, { mfaEnabled: false }));
    const denied = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, a.id), eq(auditEvents.outcome, 'denied')));
    expect(denied.map((e) => e.action)).toContain('auth.mfa.settings');
    expect((await me(a)).mfaEnabled).toBe(true);
  });

  it('leaves the other settings alone: turning two-factor on and profile changes need no proof', async () => {
    const a = await register('no-proof-needed@example.com');
    later();
    expect((await put(a, { name: 'New Name', emailNotifications: false })).statusCode).toBe(200);
    expect((await put(a, { mfaEnabled: true })).statusCode).toBe(200);
    // Signing yourself out is a sign-out.
    const list = await call({ method: 'GET', url: '/api/auth/sessions', headers: a.auth });
    const current = (list.json().data as Array<{ id: string; current: boolean }>).find((x) => x.current)!;
    const out = await call({ method: 'DELETE', url: `/api/auth/sessions/${current.id}`, headers: a.auth });
    expect(out.statusCode).toBe(200);
  });
});

describe('proofs of identity', () => {
  it('a wrong password is no proof, and repeated ones make the account wait', async () => {
    const a = await withTwoFactor('wrong-password@example.com');
    later();
    const wrong = await reauth(a, { password: 'Wrong!Passw0rd' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('Incorrect password. Please try again.');
    expectReauthRequired(await put(a, { mfaEnabled: false }));
    for (let i = 1; i < 10; i++) await reauth(a, { password: 'Wrong!Passw0rd' });
    const throttled = await reauth(a, { password: strongPassword });
    expect(throttled.statusCode).toBe(429);
    offsetMs += 16 * 60_000;
  });

  it("an authenticator's current code is a proof; a wrong or replayed one is not", async () => {
    const a = await register('totp-proof@example.com');
    const secret = await enrolTotp(a);
    later();
    expect((await reauth(a, { code: '000000' })).statusCode).toBe(401);
    const code = totpCode(secret);
    expect((await reauth(a, { code })).statusCode).toBe(200);
    // The same code again (same time step) is refused.
    expect((await reauth(a, { code })).statusCode).toBe(401);
    expect((await put(a, { mfaEnabled: false })).statusCode).toBe(200);
  });

  it('an emailed code is a proof for accounts with two-factor sign-in by email', async () => {
    const a = await withTwoFactor('email-code-proof@example.com');
    // Another device, signed in with its own emailed code.
    const other = await signInAgain(a);
    later();
    // No code asked for yet.
    expect((await reauth(a, { code: '123456' })).statusCode).toBe(401);
    const sent = await call({ method: 'POST', url: '/api/auth/reauthenticate/code', headers: a.auth });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().message).toBe(`A verification code has been sent to ${a.email}.`);
    const code = codeIn((await waitForMail(a.email, 'verification code', 2)).text);
    expect(code).toMatch(/^\d{6}$/);
    // The code belongs to the session that asked for it.
    expect((await reauth(other, { code })).statusCode).toBe(401);
    expect((await reauth(a, { code })).statusCode).toBe(200);
    // It works once.
    expect((await reauth(a, { code })).statusCode).toBe(401);
    expect((await put(a, { mfaEnabled: false })).statusCode).toBe(200);
  });

  it('codes are not emailed to accounts without two-factor sign-in by email', async () => {
    const a = await register('no-email-codes@example.com');
    const res = await call({ method: 'POST', url: '/api/auth/reauthenticate/code', headers: a.auth });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/Use your password instead/);
  });

  describe('Google, for accounts that sign in with it', () => {
    const googleToken = (sub: string, issuedAt = now()) => {
      const iat = Math.floor(issuedAt.getTime() / 1000);
      return new SignJWT({ email: `${sub}@example.com`, email_verified: true })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer('https://accounts.google.com')
        .setAudience(CLIENT_ID)
        .setSubject(sub)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 3600)
        .sign(googleKey);
    };

    it('a fresh Google sign-in of the same Google account is a proof; another account or an old token is not', async () => {
      const res = await call({
        method: 'POST',
        url: '/api/auth/google',
        payload: { credential: await googleToken('g-security') },
      });
      expect(res.statusCode, res.body).toBe(200);
      const token = res.json().data.authToken as string;
      const a: Account = {
        id: res.json().data.id as string,
        email: 'g-security@example.com',
        token,
        auth: { authorization: `Bearer ${token}` },
      };
      const account = await call({ method: 'GET', url: '/api/auth/me', headers: a.auth });
      expect(account.json()).toMatchObject({ hasPassword: false, googleLinked: true });
      const oldToken = await googleToken('g-security');
      later();
      // No password to give.
      const noPassword = await reauth(a, { password: strongPassword });
      expect(noPassword.statusCode).toBe(400);
      expect(noPassword.json().error).toMatch(/Confirm with Google instead/);
      expect((await reauth(a, { googleCredential: await googleToken('g-someone-else') })).statusCode).toBe(
        401,
      );
      expect((await reauth(a, { googleCredential: oldToken })).statusCode).toBe(401);
      const setPassword = { method: 'POST' as const, url: '/api/auth/password', headers: a.auth };
      expectReauthRequired(await call({ ...setPassword, payload: { newPassword: 'F1rst!Passw0rd' } }));
      expect((await reauth(a, { googleCredential: await googleToken('g-security') })).statusCode).toBe(200);
      // A Google-only account may now set a first password.
      const set = await call({ ...setPassword, payload: { newPassword: 'F1rst!Passw0rd' } });
      expect(set.statusCode, set.body).toBe(200);
      expect((await call({ method: 'GET', url: '/api/auth/me', headers: a.auth })).json().hasPassword).toBe(
        true,
      );
    });
  });
});

describe('the owner is told', () => {
  it('when two-factor sign-in is turned off', async () => {
    const a = await withTwoFactor('told-mfa-off@example.com');
    expect((await put(a, { mfaEnabled: false })).statusCode).toBe(200);
    const mail = await waitForMail(a.email, 'Two-factor sign-in was turned off');
    expect(mail.text).toContain('Two-factor sign-in was just turned off');
    expect(mail.text).toContain('/forgot-password');
  });

  it('when the password is changed: the current password is the proof, the other sessions end', async () => {
    const a = await register('told-password@example.com');
    const other = await signInAgain(a);
    later();
    const change = (currentPassword: string) =>
      call({
        method: 'POST',
        url: '/api/auth/password',
        headers: a.auth,
        payload: { currentPassword, newPassword: 'Chang3d!Passw0rd' },
      });
    const wrong = await change('Wrong!Passw0rd');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('Incorrect password. Please try again.');
    const ok = await change(strongPassword);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().message).toBe('Your password was changed and 1 other session was signed out.');
    const mail = await waitForMail(a.email, 'password was changed');
    expect(mail.text).toContain('changed in Settings');
    // This session goes on; the other one is over.
    expect((await call({ method: 'GET', url: '/api/auth/me', headers: a.auth })).statusCode).toBe(200);
    expect((await call({ method: 'GET', url: '/api/auth/me', headers: other.auth })).statusCode).toBe(401);
    const login = await call({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: a.email, password: 'Chang3d!Passw0rd', captcha: await ctx.captcha(a.email) },
    });
    expect(login.statusCode).toBe(200);
  });

  it('when the email address changes: the new address confirms, the old one is told', async () => {
    const a = await register('old-address@example.com');
    const taken = await register('taken-address@example.com');
    const ask = (newEmail: string) =>
      call({ method: 'POST', url: '/api/auth/email', headers: a.auth, payload: { newEmail } });
    // A taken address gets the same answer and no mail.
    const toTaken = await ask(taken.email);
    expect(toTaken.statusCode).toBe(200);
    expect(toTaken.json().message).toBe(
      `We sent a confirmation link to ${taken.email}. Your address changes when you open it.`,
    );
    const asked = await ask('New-Address@example.com');
    expect(asked.statusCode, asked.body).toBe(200);
    const confirm = await waitForMail('New-Address@example.com', 'Confirm your new email address');
    expect((await mailsTo(taken.email)).filter((m) => m.subject.includes('new email'))).toEqual([]);
    expect((await me(a)).email).toBe(a.email);
    const token = /token=([^\s&"]+)/.exec(confirm.text)![1]!;
    const verified = await call({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json().message).toBe('Your email address is now New-Address@example.com.');
    const row = await me(a);
    expect(row).toMatchObject({
      email: 'New-Address@example.com',
      emailNormalized: 'new-address@example.com',
    });
    expect(row.emailVerifiedAt).not.toBeNull();
    const told = await waitForMail(a.email, 'email address was changed');
    expect(told.text).toContain('New-Address@example.com');
    // The link works once; opened again, it says where the address went and changes nothing.
    const again = await call({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().message).toBe('Your email address is now New-Address@example.com.');
    expect(
      (await mailsTo(a.email)).filter((m) => m.subject.includes('email address was changed')),
    ).toHaveLength(1);
  });
});

// --- helpers ------------------------------------------------------------------------------------

const totpOf = (secret: string) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
const totpCode = (secret: string) => totpOf(secret).generate({ timestamp: now().getTime() });

/** Enrols an authenticator app while the sign-in is fresh; returns its secret. */
async function enrolTotp(a: Account): Promise<string> {
  const setup = await call({ method: 'POST', url: '/api/mfa/totp/setup', headers: a.auth });
  expect(setup.statusCode, setup.body).toBe(200);
  const secret = setup.json().secret as string;
  const confirm = await call({
    method: 'POST',
    url: '/api/mfa/totp/confirm',
    headers: a.auth,
    payload: { code: totpCode(secret) },
  });
  expect(confirm.statusCode, confirm.body).toBe(200);
  // The next code must come from a later time step (a code works once).
  offsetMs += 30_000;
  return secret;
}

async function liveSessions(a: Account): Promise<number> {
  const rows = await ctx.services.database.db.select().from(sessions).where(eq(sessions.userId, a.id));
  return rows.filter((r) => r.revokedAt === null).length;
}
