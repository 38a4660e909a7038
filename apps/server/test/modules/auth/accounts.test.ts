import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, desc, eq, like, sql } from 'drizzle-orm';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { PASSWORD_MESSAGE, RESET_PASSWORD_MESSAGE } from '@mi/contracts/rules';
import { auditEvents, mailOutbox, professionalProfiles, users } from '../../../src/db/schema/index';
import {
  cookieHeader,
  createTestContext,
  eventually,
  registerPatient,
  strongPassword,
  type TestContext,
} from '../../helpers/test-app';

// One app for the file, with Google sign-in configured against a local JWKS and a clock the
// tests move forward instead of sleeping.
let ctx: TestContext;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const advance = (ms: number) => {
  offsetMs += ms;
};
const CLIENT_ID = 'test-client.apps.googleusercontent.com';
let jwksServer: Server;
let googleKey: { privateKey: CryptoKey; kid: string };
let strangerKey: CryptoKey;

let ipCounter = 0;
/** Each call from its own address, so per-IP route limits do not interfere across tests. */
const freshIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

beforeAll(async () => {
  const good = await generateKeyPair('RS256');
  const stranger = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(good.publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  googleKey = { privateKey: good.privateKey, kid: 'test-key-1' };
  strangerKey = stranger.privateKey;
  jwksServer = createServer((req, res) => {
    if (req.url === '/certs') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const port = (jwksServer.address() as AddressInfo).port;
  ctx = await createTestContext(
    {
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_JWKS_URL: `http://127.0.0.1:${port}/certs`,
      TERMS_URL: 'https://example.org/terms',
    },
    { now },
  );
});
afterAll(async () => {
  await ctx?.close();
  await new Promise((resolve) => jwksServer?.close(resolve));
});

const call = (opts: InjectOptions & { ip?: string }) => {
  const { ip, ...rest } = opts;
  return ctx.app.inject({ ...rest, remoteAddress: ip ?? freshIp() });
};

async function register(email: string, extra: Record<string, unknown> = {}) {
  return call({
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
      ...extra,
    },
  });
}

const professional = (email: string) => ({
  email,
  password: strongPassword,
  name: 'Dana Scully',
  role: 'professional',
  mobilePhone: '+15550111',
  license: { number: 'MD-12345', state: 'MD', expiryDate: '2030-06-30' },
  specialty: 'Radiology',
  hospital: 'Georgetown Hospital',
  position: 'Attending',
  acceptTerms: true,
});

async function login(email: string, password = strongPassword, ip?: string) {
  return call({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, captcha: await ctx.captcha(email) },
    ip,
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function mailsTo(to: string) {
  return ctx.services.database.db
    .select()
    .from(mailOutbox)
    .where(eq(mailOutbox.to, to))
    .orderBy(desc(mailOutbox.createdAt));
}

/** The newest message to `to` whose subject contains `subject` and that arrived after `after` messages. */
async function waitForMail(to: string, subject: string, count = 1) {
  return eventually(async () => {
    const rows = (await mailsTo(to)).filter((m) => m.subject.includes(subject));
    return rows.length >= count ? rows[0] : undefined;
  });
}

const codeIn = (text: string) => /verification code is (\d{6})/.exec(text)?.[1] ?? '';

async function patientSession(email: string) {
  const res = await register(email);
  expect(res.statusCode).toBe(201);
  return { id: res.json().data.id as string, token: res.json().data.authToken as string };
}

async function adminToken() {
  const res = await login(ctx.services.config.adminEmail, await adminPassword());
  expect(res.statusCode).toBe(200);
  return res.json().data.authToken as string;
}

let adminPass: string | undefined;
async function adminPassword() {
  if (adminPass) return adminPass;
  // The test app has no first-start admin; make one with a known password.
  const { hashPassword } = await import('../../../src/modules/auth/password');
  adminPass = 'Adm1n!Passw0rd';
  await ctx.services.users.insertIfEmailFree({
    email: ctx.services.config.adminEmail,
    emailNormalized: ctx.services.config.adminEmail,
    passwordHash: await hashPassword(adminPass),
    name: 'Administrator',
    role: 'admin',
    accountStatus: 'active',
    emailVerifiedAt: new Date(),
  });
  return adminPass;
}

async function enableEmailMfa(id: string, token: string) {
  const res = await call({
    method: 'PUT',
    url: `/api/users/${id}`,
    headers: bearer(token),
    payload: { mfaEnabled: true },
  });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ mfaEnabled: true, mfaMethod: 'email' });
}

async function startMfaLogin(email: string) {
  const before = (await mailsTo(email)).filter((m) => m.subject.includes('verification code')).length;
  const res = await login(email);
  expect(res.statusCode).toBe(200);
  const mail = await waitForMail(email, 'verification code', before + 1);
  return { res, code: codeIn(mail.text), cookie: cookieHeader(res), body: res.json() };
}

describe('medical professional registration and verification', () => {
  it('requires every professional field with the spec messages', async () => {
    const res = await call({
      method: 'POST',
      url: '/api/auth/register',
      payload: {
        email: 'nolicence@example.com',
        password: strongPassword,
        name: 'No Licence',
        role: 'professional',
        acceptTerms: true,
        captcha: await ctx.captcha(),
      },
    });
    expect(res.statusCode).toBe(400);
    const messages = (res.json().details as Array<{ message: string }>).map((d) => d.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'Phone number is required',
        'Specialty is required',
        'Hospital/clinic affiliation is required',
        'License number is required',
      ]),
    );
    const bad = await register('badspecialty@example.com', {
      ...professional('badspecialty@example.com'),
      specialty: 'Astrology',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain('Specialty is required');
  });

  it('stores the licence, keeps the account pending and signs nobody in', async () => {
    const res = await register('scully@example.com', professional('scully@example.com'));
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ accountStatus: 'pending' });
    expect(res.json().data.authToken).toBeUndefined();
    const [row] = await ctx.services.database.db
      .select()
      .from(users)
      .where(eq(users.emailNormalized, 'scully@example.com'));
    expect(row).toMatchObject({ role: 'professional', accountStatus: 'pending', mobilePhone: '+15550111' });
    const [profile] = await ctx.services.database.db
      .select()
      .from(professionalProfiles)
      .where(eq(professionalProfiles.userId, row!.id));
    expect(profile).toMatchObject({
      licenseNumber: 'MD-12345',
      licenseState: 'MD',
      licenseExpiryDate: '2030-06-30',
      specialty: 'Radiology',
      hospital: 'Georgetown Hospital',
      position: 'Attending',
    });
  });

  it('lets a pending professional sign in to see only their status', async () => {
    const res = await login('scully@example.com');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.accountStatus).toBe('pending');
    const token = res.json().data.authToken;
    const me = await call({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });
    expect(me.json()).toMatchObject({
      accountStatus: 'pending',
      rejectionReason: null,
      role: 'professional',
    });
    const put = await call({
      method: 'PUT',
      url: `/api/users/${me.json().id}`,
      headers: bearer(token),
      payload: { name: 'X' },
    });
    expect(put.statusCode).toBe(403);
    expect(put.json().code).toBe('ACCOUNT_INACTIVE');
  });

  it('hides the admin routes from patients and professionals (404)', async () => {
    const patient = await patientSession('curious@example.com');
    for (const [method, url] of [
      ['GET', '/api/admin/professionals'],
      ['POST', '/api/admin/professionals/00000000-0000-0000-0000-000000000000/approve'],
      ['GET', '/api/admin/outbox'],
    ] as const) {
      const res = await call({ method, url, headers: bearer(patient.token) });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('NOT_FOUND');
    }
    const anonymous = await call({ method: 'GET', url: '/api/admin/professionals' });
    expect(anonymous.statusCode).toBe(404);
  });

  it('admins list, approve and reject applications; applicants are emailed either way', async () => {
    const token = await adminToken();
    await register('mulder@example.com', { ...professional('mulder@example.com'), name: 'Fox Mulder' });
    const list = await call({ method: 'GET', url: '/api/admin/professionals', headers: bearer(token) });
    expect(list.statusCode).toBe(200);
    const apps = list.json().data as Array<{ id: string; email: string; license: { number: string } }>;
    const scully = apps.find((a) => a.email === 'scully@example.com')!;
    const mulder = apps.find((a) => a.email === 'mulder@example.com')!;
    expect(scully.license.number).toBe('MD-12345');

    const approve = await call({
      method: 'POST',
      url: `/api/admin/professionals/${scully.id}/approve`,
      headers: bearer(token),
    });
    expect(approve.statusCode).toBe(200);
    expect(approve.json().data.accountStatus).toBe('active');
    await waitForMail('scully@example.com', 'approved');

    const noReason = await call({
      method: 'POST',
      url: `/api/admin/professionals/${mulder.id}/reject`,
      headers: bearer(token),
      payload: { reason: ' ' },
    });
    expect(noReason.statusCode).toBe(400);
    const reject = await call({
      method: 'POST',
      url: `/api/admin/professionals/${mulder.id}/reject`,
      headers: bearer(token),
      payload: { reason: 'Licence <b>number</b> not found in the MD registry' },
    });
    expect(reject.statusCode).toBe(200);
    const mail = await waitForMail('mulder@example.com', 'application');
    expect(mail.text).toContain('Licence <b>number</b> not found');
    expect(mail.html).toContain('Licence &lt;b&gt;number&lt;/b&gt;');

    const pendingNow = await call({ method: 'GET', url: '/api/admin/professionals', headers: bearer(token) });
    expect((pendingNow.json().data as Array<{ email: string }>).map((a) => a.email)).not.toContain(
      'scully@example.com',
    );

    const scullyLogin = await login('scully@example.com');
    expect(scullyLogin.json().data.accountStatus).toBe('active');
    const mulderLogin = await login('mulder@example.com');
    const me = await call({
      method: 'GET',
      url: '/api/auth/me',
      headers: bearer(mulderLogin.json().data.authToken),
    });
    expect(me.json()).toMatchObject({
      accountStatus: 'rejected',
      rejectionReason: 'Licence <b>number</b> not found in the MD registry',
    });

    const audit = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'user.status_change'));
    expect(audit.map((a) => a.targetId)).toEqual(expect.arrayContaining([scully.id, mulder.id]));
  });
});

describe('second factor by email', () => {
  let id: string;
  const email = 'mfa@example.com';

  beforeAll(async () => {
    const s = await patientSession(email);
    id = s.id;
    await enableEmailMfa(s.id, s.token);
  });

  it('a correct password yields only a pending sign-in; the code (with the pending token) signs in', async () => {
    const { res, code, cookie, body } = await startMfaLogin(email);
    expect(body.data).toMatchObject({ id, email, mfaEnabled: true, mfaMethod: 'email' });
    expect(body.data.authToken).toBeUndefined();
    expect(res.cookies.map((c) => c.name)).toEqual(['mfaPending']);
    expect(res.cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/mfa' });

    // The code alone never signs anyone in.
    const alone = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      payload: { mfaSecret: code, email, userId: id },
    });
    expect(alone.statusCode).toBe(401);
    expect(alone.json().code).toBe('MFA_SESSION_EXPIRED');

    const ok = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie },
      payload: { mfaSecret: code, email, userId: id },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ message: 'Logged in successfully', user: { id, email } });
    const me = await call({ method: 'GET', url: '/api/auth/me', headers: bearer(ok.json().authToken) });
    expect(me.statusCode).toBe(200);
    expect(ok.cookies.find((c) => c.name === 'authToken')?.value).toBe(ok.json().authToken);

    // Reusing the code (and the pending token) fails.
    const again = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie },
      payload: { mfaSecret: code, email, userId: id },
    });
    expect(again.statusCode).toBe(401);
  });

  it('API clients can send the pending token in the body', async () => {
    const { code, body } = await startMfaLogin(email);
    const ok = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      payload: { mfaSecret: code, email, userId: id, mfaToken: body.data.mfaToken },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses a code with another user id or email', async () => {
    const { code, cookie } = await startMfaLogin(email);
    const other = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie },
      payload: { mfaSecret: code, email: 'x@example.com', userId: id },
    });
    expect(other.statusCode).toBe(401);
    expect(other.json()).toEqual({ error: 'Invalid/Expired Code', code: 'MFA_INVALID' });
  });

  it('a sixth try after five wrong codes fails even with the right code', async () => {
    const { code, cookie } = await startMfaLogin(email);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await call({
        method: 'POST',
        url: '/api/mfa/verify',
        headers: { cookie },
        payload: { mfaSecret: wrong, email, userId: id },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('Invalid/Expired Code');
    }
    const sixth = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie },
      payload: { mfaSecret: code, email, userId: id },
    });
    expect(sixth.statusCode).toBe(401);
    expect(sixth.json().error).toBe('Invalid/Expired Code');
    const failures = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'auth.mfa.verify'), eq(auditEvents.outcome, 'failure')));
    expect(failures.length).toBeGreaterThanOrEqual(6);
  });

  it('a code expires after 10 minutes', async () => {
    const { code, cookie } = await startMfaLogin(email);
    advance(10 * 60_000 + 1_000);
    const res = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie },
      payload: { mfaSecret: code, email, userId: id },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('Invalid/Expired Code');
  });

  it('resend waits 30 seconds, replaces the code and is limited per account', async () => {
    const { code: first, cookie } = await startMfaLogin(email);
    const early = await call({
      method: 'POST',
      url: '/api/mfa/resend',
      headers: { cookie },
      payload: { email },
    });
    expect(early.statusCode).toBe(429);
    advance(31_000);
    const before = (await mailsTo(email)).length;
    const resent = await call({
      method: 'POST',
      url: '/api/mfa/resend',
      headers: { cookie },
      payload: { email },
    });
    expect(resent.statusCode).toBe(200);
    expect(resent.json().message).toMatch(/new verification code/);
    const mail = await eventually(async () => {
      const rows = await mailsTo(email);
      return rows.length > before ? rows[0] : undefined;
    });
    const second = codeIn(mail.text);
    if (second !== first) {
      const old = await call({
        method: 'POST',
        url: '/api/mfa/verify',
        headers: { cookie },
        payload: { mfaSecret: first, email, userId: id },
      });
      expect(old.statusCode).toBe(401);
    }
    const ok = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie },
      payload: { mfaSecret: second, email, userId: id },
    });
    expect(ok.statusCode).toBe(200);
    const noToken = await call({ method: 'POST', url: '/api/mfa/resend', payload: { email } });
    expect(noToken.statusCode).toBe(401);
  });

  it('limits verification attempts per account across pending sign-ins', async () => {
    const limited = await patientSession('mfa-limit@example.com');
    await enableEmailMfa(limited.id, limited.token);
    let last;
    for (let round = 0; round < 5; round++) {
      const { cookie, code } = await startMfaLogin('mfa-limit@example.com');
      const wrong = code === '000000' ? '111111' : '000000';
      for (let i = 0; i < 5; i++) {
        last = await call({
          method: 'POST',
          url: '/api/mfa/verify',
          headers: { cookie },
          payload: { mfaSecret: wrong, email: 'mfa-limit@example.com', userId: limited.id },
        });
      }
    }
    expect(last?.statusCode).toBe(429);
    advance(16 * 60_000);
  });
});

describe('authenticator app (TOTP) and recovery codes', () => {
  it('enrols with a QR code, signs in with a TOTP code, and a recovery code works once', async () => {
    const email = 'totp@example.com';
    const s = await patientSession(email);
    const notEnrolled = await call({
      method: 'PUT',
      url: `/api/users/${s.id}`,
      headers: bearer(s.token),
      payload: { mfaMethod: 'totp' },
    });
    expect(notEnrolled.statusCode).toBe(400);

    const setup = await call({ method: 'POST', url: '/api/mfa/totp/setup', headers: bearer(s.token) });
    expect(setup.statusCode).toBe(200);
    expect(setup.json().qrCodeDataUrl).toMatch(/^data:image\/png;base64,/);
    expect(setup.json().otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    const totp = new TOTP({
      secret: Secret.fromBase32(setup.json().secret),
      digits: 6,
      period: 30,
      algorithm: 'SHA1',
    });
    const codeAt = (offsetSteps = 0) => totp.generate({ timestamp: now().getTime() + offsetSteps * 30_000 });

    const wrong = await call({
      method: 'POST',
      url: '/api/mfa/totp/confirm',
      headers: bearer(s.token),
      payload: { code: codeAt(5) },
    });
    expect(wrong.statusCode).toBe(400);
    const confirm = await call({
      method: 'POST',
      url: '/api/mfa/totp/confirm',
      headers: bearer(s.token),
      payload: { code: codeAt() },
    });
    expect(confirm.statusCode).toBe(200);
    const recoveryCodes = confirm.json().recoveryCodes as string[];
    expect(recoveryCodes).toHaveLength(10);
    expect(confirm.json().user).toMatchObject({ mfaEnabled: true, mfaMethod: 'totp', totpEnrolled: true });
    const [row] = await ctx.services.database.db.select().from(users).where(eq(users.id, s.id));
    expect(row?.totpSecret).not.toContain(setup.json().secret);

    advance(30_000);
    const res = await login(email);
    expect(res.json().data).toMatchObject({ mfaEnabled: true, mfaMethod: 'totp' });
    const cookie = cookieHeader(res);
    const ok = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie },
      payload: { mfaSecret: codeAt(), email, userId: s.id },
    });
    expect(ok.statusCode).toBe(200);

    // The same time step cannot be replayed.
    const replayLogin = await login(email);
    const replay = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie: cookieHeader(replayLogin) },
      payload: { mfaSecret: codeAt(), email, userId: s.id },
    });
    expect(replay.statusCode).toBe(401);

    const rc = recoveryCodes[0]!;
    const viaRecovery = await login(email);
    const recovered = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie: cookieHeader(viaRecovery) },
      payload: { mfaSecret: rc.toUpperCase(), email, userId: s.id },
    });
    expect(recovered.statusCode).toBe(200);
    const reuse = await login(email);
    const reused = await call({
      method: 'POST',
      url: '/api/mfa/verify',
      headers: { cookie: cookieHeader(reuse) },
      payload: { mfaSecret: rc, email, userId: s.id },
    });
    expect(reused.statusCode).toBe(401);
  });
});

describe('Google sign-in', () => {
  async function googleToken(
    claims: Record<string, unknown>,
    opts: { key?: CryptoKey; aud?: string; expSeconds?: number; iss?: string } = {},
  ) {
    const iat = Math.floor(now().getTime() / 1000);
    return new SignJWT({ email_verified: true, ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: googleKey.kid })
      .setIssuer(opts.iss ?? 'https://accounts.google.com')
      .setAudience(opts.aud ?? CLIENT_ID)
      .setIssuedAt(iat)
      .setExpirationTime(iat + (opts.expSeconds ?? 3600))
      .sign(opts.key ?? googleKey.privateKey);
  }
  const google = (credential: string) =>
    call({ method: 'POST', url: '/api/auth/google', payload: { credential } });

  it('creates an account keyed by sub and signs it in', async () => {
    const res = await google(
      await googleToken({ sub: 'g-100', email: 'gina@example.com', name: 'Gina Google' }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      message: 'Logged in Successfully',
      data: { email: 'gina@example.com', mfaEnabled: false },
    });
    const me = await call({ method: 'GET', url: '/api/auth/me', headers: bearer(res.json().data.authToken) });
    expect(me.json()).toMatchObject({
      email: 'gina@example.com',
      name: 'Gina Google',
      emailVerified: true,
      role: 'patient',
    });
    // Same sub, changed email at Google: still the same account.
    const again = await google(await googleToken({ sub: 'g-100', email: 'gina.new@example.com' }));
    expect(again.json().data.id).toBe(me.json().id);
  });

  it('accepts the bare issuer too', async () => {
    const res = await google(
      await googleToken({ sub: 'g-101', email: 'bare@example.com' }, { iss: 'accounts.google.com' }),
    );
    expect(res.statusCode).toBe(200);
  });

  it('refuses a token signed by another key, for another audience, expired, or from another issuer', async () => {
    const bad = [
      await googleToken({ sub: 'g-200', email: 'evil@example.com' }, { key: strangerKey }),
      await googleToken(
        { sub: 'g-200', email: 'evil@example.com' },
        { aud: 'someone-else.apps.googleusercontent.com' },
      ),
      await googleToken({ sub: 'g-200', email: 'evil@example.com' }, { expSeconds: -60 }),
      await googleToken({ sub: 'g-200', email: 'evil@example.com' }, { iss: 'https://evil.example.com' }),
      'not-a-jwt',
    ];
    for (const credential of bad) {
      const res = await google(credential);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: 'Google sign-in failed. Please try again.',
        code: 'GOOGLE_AUTH_FAILED',
      });
    }
    const [row] = await ctx.services.database.db
      .select()
      .from(users)
      .where(eq(users.emailNormalized, 'evil@example.com'));
    expect(row).toBeUndefined();
  });

  it('links an existing password account only when Google says the email is verified', async () => {
    const s = await patientSession('linda@example.com');
    const unverified = await google(
      await googleToken({ sub: 'g-300', email: 'Linda@example.com', email_verified: false }),
    );
    expect(unverified.statusCode).toBe(401);
    let [row] = await ctx.services.database.db.select().from(users).where(eq(users.id, s.id));
    expect(row?.googleSub).toBeNull();

    const verified = await google(await googleToken({ sub: 'g-300', email: 'Linda@example.com' }));
    expect(verified.statusCode).toBe(200);
    expect(verified.json().data.id).toBe(s.id);
    [row] = await ctx.services.database.db.select().from(users).where(eq(users.id, s.id));
    expect(row?.googleSub).toBe('g-300');
    expect(row?.emailVerifiedAt).toBeInstanceOf(Date);

    // A second Google account with the same email cannot take it over.
    const other = await google(await googleToken({ sub: 'g-301', email: 'linda@example.com' }));
    expect(other.statusCode).toBe(401);
    const links = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'auth.google.link'));
    expect(links.map((l) => l.outcome)).toEqual(expect.arrayContaining(['success', 'denied']));
  });

  it('lets Google Identity Services through the CSP only when a client id is configured', async () => {
    const res = await call({ method: 'GET', url: '/api/config' });
    expect(res.json().googleClientId).toBe(CLIENT_ID);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'[^;]* https:\/\/accounts\.google\.com/);
    expect(csp).toMatch(/frame-src [^;]*https:\/\/accounts\.google\.com/);
  });

  it('still asks for the second factor', async () => {
    const s = await patientSession('gmfa@example.com');
    await enableEmailMfa(s.id, s.token);
    const res = await google(await googleToken({ sub: 'g-400', email: 'gmfa@example.com' }));
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ mfaEnabled: true });
    expect(res.json().data.authToken).toBeUndefined();
  });
});

describe('forgot and reset password', () => {
  const email = 'forgetful@example.com';
  const resetLink = async (count: number) => {
    const mail = await waitForMail(email, 'Reset your', count);
    const url = new URL(/(http\S+reset-password\S+)/.exec(mail.text)![1]!);
    return { challenge: url.searchParams.get('challenge')!, email: url.searchParams.get('email')! };
  };
  const forgot = (address: string) =>
    call({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: address } });

  it('answers the same whether or not the email exists', async () => {
    await patientSession(email);
    const known = await forgot(email);
    const unknown = await forgot('ghost@example.com');
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());
    await resetLink(1);
    expect(await mailsTo('ghost@example.com')).toHaveLength(0);
  });

  it('a valid link resets once, revokes every session and does not bypass 2FA', async () => {
    const first = await login(email);
    const oldToken = first.json().data.authToken;
    await enableEmailMfa(first.json().data.id, oldToken);
    const { challenge } = await resetLink(1);
    const check = await call({
      method: 'POST',
      url: '/api/auth/verifyResetToken',
      payload: { email, challenge },
    });
    expect(check.json()).toEqual({ isValid: true });
    const wrongEmail = await call({
      method: 'POST',
      url: '/api/auth/verifyResetToken',
      payload: { email: 'ghost@example.com', challenge },
    });
    expect(wrongEmail.json()).toEqual({ isValid: false });

    const weak = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { email, challenge, newPassword: 'weakpassword' },
    });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error).toContain(RESET_PASSWORD_MESSAGE);

    const newPassword = 'N3w!Passw0rd';
    const reset = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { email, challenge, newPassword },
    });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ message: 'Password reset successful.' });
    expect((await call({ method: 'GET', url: '/api/auth/me', headers: bearer(oldToken) })).statusCode).toBe(
      401,
    );

    const reuse = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { email, challenge, newPassword: 'An0ther!Pass' },
    });
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json()).toEqual({
      error: 'Token Expired or Invalid, Please try again',
      code: 'RESET_TOKEN_INVALID',
    });
    expect(
      (
        await call({ method: 'POST', url: '/api/auth/verifyResetToken', payload: { email, challenge } })
      ).json(),
    ).toEqual({ isValid: false });

    const next = await login(email, newPassword);
    expect(next.statusCode).toBe(200);
    expect(next.json().data.mfaEnabled).toBe(true);
    expect(next.json().data.authToken).toBeUndefined();
    expect((await login(email, strongPassword)).statusCode).toBe(401);
    const audit = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(like(auditEvents.action, 'auth.password_reset.%'));
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['auth.password_reset.requested', 'auth.password_reset.completed']),
    );
  });

  it('a link expires after one hour', async () => {
    await forgot(email);
    const { challenge } = await resetLink(2);
    advance(61 * 60_000);
    expect(
      (
        await call({ method: 'POST', url: '/api/auth/verifyResetToken', payload: { email, challenge } })
      ).json(),
    ).toEqual({ isValid: false });
    const res = await call({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { email, challenge, newPassword: 'Late!Passw0rd' },
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('email verification', () => {
  it('emails a single-use link at registration; the banner can resend it', async () => {
    const email = 'verify@example.com';
    const s = await patientSession(email);
    await patientSession('profile-unverified@example.com');
    expect(await ctx.services.users.findVerifiedByEmail(email)).toBeUndefined();
    const mail = await waitForMail(email, 'Welcome to Medical Imaging');
    const token = new URL(/(http\S+verify-email\S+)/.exec(mail.text)![1]!).searchParams.get('token')!;
    const me1 = await call({ method: 'GET', url: '/api/auth/me', headers: bearer(s.token) });
    expect(me1.json().emailVerified).toBe(false);

    const resend = await call({
      method: 'POST',
      url: '/api/auth/verify-email/resend',
      headers: bearer(s.token),
    });
    expect(resend.statusCode).toBe(200);
    const second = await waitForMail(email, 'Confirm your email');
    const token2 = new URL(/(http\S+verify-email\S+)/.exec(second.text)![1]!).searchParams.get('token')!;
    // A newer link replaces the older one.
    expect(
      (await call({ method: 'POST', url: '/api/auth/verify-email', payload: { token } })).statusCode,
    ).toBe(400);
    const ok = await call({ method: 'POST', url: '/api/auth/verify-email', payload: { token: token2 } });
    expect(ok.statusCode).toBe(200);
    // Opened again, the link says what it did rather than "invalid"; so does the replaced one now.
    for (const t of [token2, token]) {
      const again = await call({ method: 'POST', url: '/api/auth/verify-email', payload: { token: t } });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json().message).toBe('Your email address is already verified.');
    }
    const forged = await call({
      method: 'POST',
      url: '/api/auth/verify-email',
      payload: { token: 'x'.repeat(43) },
    });
    expect(forged.statusCode).toBe(400);
    const me2 = await call({ method: 'GET', url: '/api/auth/me', headers: bearer(s.token) });
    expect(me2.json().emailVerified).toBe(true);
    expect((await ctx.services.users.findVerifiedByEmail(email))?.id).toBe(s.id);
    expect(await ctx.services.users.findVerifiedByEmail('profile-unverified@example.com')).toBeUndefined();
  });
});

describe('sessions and login throttling', () => {
  it('lists active sessions, revokes one or all others, and never someone else’s', async () => {
    const email = 'devices@example.com';
    const s = await patientSession(email);
    const phone = await call({
      method: 'POST',
      url: '/api/auth/login',
      headers: {
        'user-agent':
          'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1',
      },
      payload: { email, password: strongPassword, captcha: await ctx.captcha() },
    });
    const laptop = await call({
      method: 'POST',
      url: '/api/auth/login',
      headers: {
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36',
      },
      payload: { email, password: strongPassword, captcha: await ctx.captcha() },
    });
    const list = await call({
      method: 'GET',
      url: '/api/auth/sessions',
      headers: bearer(laptop.json().data.authToken),
    });
    const sessions = list.json().data as Array<{ id: string; device: string; current: boolean }>;
    expect(sessions).toHaveLength(3);
    expect(sessions.filter((x) => x.current)).toHaveLength(1);
    expect(sessions.find((x) => x.current)?.device).toBe('Chrome on Linux');
    expect(sessions.map((x) => x.device)).toContain('Safari on iOS');

    const phoneSession = sessions.find((x) => x.device === 'Safari on iOS')!;
    const stranger = await patientSession('stranger@example.com');
    const notYours = await call({
      method: 'DELETE',
      url: `/api/auth/sessions/${phoneSession.id}`,
      headers: bearer(stranger.token),
    });
    expect(notYours.statusCode).toBe(404);

    const revoke = await call({
      method: 'DELETE',
      url: `/api/auth/sessions/${phoneSession.id}`,
      headers: bearer(laptop.json().data.authToken),
    });
    expect(revoke.statusCode).toBe(200);
    expect(
      (await call({ method: 'GET', url: '/api/auth/me', headers: bearer(phone.json().data.authToken) }))
        .statusCode,
    ).toBe(401);

    const others = await call({
      method: 'POST',
      url: '/api/auth/sessions/revoke-others',
      headers: bearer(laptop.json().data.authToken),
    });
    expect(others.json().message).toBe('1 other session was signed out.');
    expect((await call({ method: 'GET', url: '/api/auth/me', headers: bearer(s.token) })).statusCode).toBe(
      401,
    );
    expect(
      (await call({ method: 'GET', url: '/api/auth/me', headers: bearer(laptop.json().data.authToken) }))
        .statusCode,
    ).toBe(200);
    const audit = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'auth.session_revoked'));
    expect(audit.length).toBeGreaterThanOrEqual(2);
  });

  it('throttles failed sign-ins per account, the same for unknown emails', async () => {
    const email = 'target@example.com';
    await patientSession(email);
    for (const address of [email, 'unknown-target@example.com']) {
      for (let i = 0; i < 10; i++) {
        const res = await login(address, 'Wrong!Pass1');
        expect(res.statusCode).toBe(401);
      }
      const blocked = await login(address, strongPassword);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json()).toEqual({
        error: 'Too many sign-in attempts. Please wait 15 minutes and try again.',
        code: 'RATE_LIMITED',
      });
    }
    advance(16 * 60_000);
    expect((await login(email)).statusCode).toBe(200);
  });

  it('throttles failed sign-ins per IP', async () => {
    // Through the service, so the route's own per-minute limit does not answer first.
    const meta = { requestId: 'test', ip: '10.99.0.1' };
    const attempt = async (i: number) =>
      ctx.services.auth
        .login(
          { email: `spray-${i}@example.com`, password: 'Wrong!Pass1', captcha: await ctx.captcha() },
          meta,
        )
        .then(
          () => 'ok',
          (err: { code?: string }) => err.code,
        );
    for (let i = 0; i < 100; i++) expect(await attempt(i)).toBe('INVALID_CREDENTIALS');
    expect(await attempt(100)).toBe('RATE_LIMITED');
    // Another address is not affected.
    expect((await login('spray-0@example.com', 'Wrong!Pass1')).statusCode).toBe(401);
    advance(16 * 60_000);
  }, 120_000);
});

describe('PUT /api/users/{id}', () => {
  it('updates only the spec fields of the signed-in user', async () => {
    const s = await patientSession('profile@example.com');
    const res = await call({
      method: 'PUT',
      url: `/api/users/${s.id}`,
      headers: bearer(s.token),
      payload: {
        name: 'Pat Q. Smith',
        dateOfBirth: '1980-02-29',
        mobilePhone: '+15550199',
        shareMedicalData: true,
        emailNotifications: false,
        welcomeModalShown: true,
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: s.id,
      name: 'Pat Q. Smith',
      dateOfBirth: '1980-02-29',
      mobilePhone: '+15550199',
      shareMedicalData: true,
      emailNotifications: false,
      welcomeModalShown: true,
    });
    expect(res.json().shareMedicalDataUpdatedAt).toEqual(expect.any(String));
    expect(res.json().termsAcceptedAt).toEqual(expect.any(String));

    for (const payload of [
      { role: 'admin' },
      { email: 'new@example.com' },
      { accountStatus: 'active' },
      { dateOfBirth: '02/29/1980' },
      { mfaMethod: 'sms' },
    ]) {
      const bad = await call({ method: 'PUT', url: `/api/users/${s.id}`, headers: bearer(s.token), payload });
      expect(bad.statusCode).toBe(400);
    }
    const [row] = await ctx.services.database.db.select().from(users).where(eq(users.id, s.id));
    expect(row).toMatchObject({ role: 'patient', email: 'profile@example.com' });
  });

  it("refuses another user's id with 404, and needs a session", async () => {
    const a = await patientSession('alice@example.com');
    const b = await patientSession('bob@example.com');
    const res = await call({
      method: 'PUT',
      url: `/api/users/${b.id}`,
      headers: bearer(a.token),
      payload: { name: 'Hacked' },
    });
    expect(res.statusCode).toBe(404);
    const [row] = await ctx.services.database.db.select().from(users).where(eq(users.id, b.id));
    expect(row?.name).toBe('Pat Smith');
    const anonymous = await call({ method: 'PUT', url: `/api/users/${b.id}`, payload: { name: 'Hacked' } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('turning two-factor on with no method sets email', async () => {
    const s = await patientSession('twofactor@example.com');
    const res = await call({
      method: 'PUT',
      url: `/api/users/${s.id}`,
      headers: bearer(s.token),
      payload: { mfaEnabled: true },
    });
    expect(res.json()).toMatchObject({ mfaEnabled: true, mfaMethod: 'email' });
    const audit = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'auth.mfa.settings'));
    expect(audit.some((a) => a.actorId === s.id)).toBe(true);
  });

  it('exposes the session timings the browser timer needs', async () => {
    const res = await call({ method: 'GET', url: '/api/config' });
    expect(res.json().session).toEqual({ idleMinutes: 30, warningMinutes: 5 });
  });

  it('says where the terms and conditions are published, for the registration forms', async () => {
    const res = await call({ method: 'GET', url: '/api/config' });
    expect(res.json().termsUrl).toBe('https://example.org/terms');
  });
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
      error: 'Captcha verification failed. Please try again.',
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
    const replay = await call({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'human@example.com', password: strongPassword, captcha: solved },
    });
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
