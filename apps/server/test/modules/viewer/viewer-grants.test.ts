import { createHash } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox, sessions } from '../../../src/db/schema/index';
import { hashPassword } from '../../../src/modules/auth/password';
import { hashToken } from '../../../src/modules/auth/tokens';
import { buildViewerApp } from '../../../src/modules/viewer/viewer-app';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, uid } from '../../helpers/studies';
import {
  createTestContext,
  eventually,
  registerUser,
  strongPassword,
  type TestContext,
} from '../../helpers/test-app';

// Viewer grants are answered from memory for a DICOMweb burst. Every way a sign-in session ends
// must still end the grants it obtained on the very next read: within 100 ms of the answer that
// ended it, in this process and in another one on the same database.

const SOON_MS = 100;
let ipCounter = 0;
const freshIp = () => `10.7.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
const call = (c: TestContext, opts: InjectOptions) => c.app.inject({ ...opts, remoteAddress: freshIp() });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function register(c: TestContext, email: string) {
  const res = await registerUser(c, email, { remoteAddress: freshIp() });
  expect(res.statusCode).toBe(201);
  return res.json().data as { id: string; authToken: string };
}

async function login(c: TestContext, email: string, password = strongPassword) {
  const res = await call(c, {
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password, captcha: await c.captcha() },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as { id: string; authToken: string };
}

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

/** A patient with one study, signed in. */
async function patientWithStudy(c: TestContext, email: string) {
  const user = await register(c, email);
  const [studyId] = await ingestFiles(c, user.id, [
    makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
  ]);
  return { ...user, studyId: studyId! };
}

/**
 * Opens the viewer for the study with the session `authToken` (grant issued, bound to this
 * "browser"), and proves that reads of it are answered from memory from then on.
 */
async function openViewer(c: TestContext, viewerApp: FastifyInstance, authToken: string, studyId: string) {
  const urlRes = await call(c, { url: `/api/dicom/viewer/${studyId}`, headers: bearer(authToken) });
  expect(urlRes.statusCode).toBe(200);
  const grant = new URL((urlRes.json() as { url: string }).url).hash.replace('#grant=', '');
  const bind = await viewerApp.inject({ method: 'POST', url: '/dicomweb/session', headers: bearer(grant) });
  expect(bind.statusCode).toBe(204);
  const cookie = bind.cookies[0]!;
  const headers = { ...bearer(grant), cookie: `${cookie.name}=${cookie.value}` };
  const read = () => viewerApp.inject({ url: '/dicomweb/studies', headers });
  return { read, grant };
}

async function warm(c: TestContext, read: () => Promise<{ statusCode: number }>) {
  expect((await read()).statusCode).toBe(200);
  const before = c.services.viewerGrants.stats().hits;
  expect((await read()).statusCode).toBe(200);
  expect(c.services.viewerGrants.stats().hits).toBeGreaterThan(before);
}

/** The grant's next read, started within 100 ms of the moment the session ended. */
async function readSoonAfter(endedAt: number, read: () => Promise<{ statusCode: number }>) {
  expect(Date.now() - endedAt).toBeLessThan(SOON_MS);
  return (await read()).statusCode;
}

describe('viewer grants end with their session at once', () => {
  let ctx: TestContext;
  let viewerApp: FastifyInstance;

  beforeAll(async () => {
    ctx = await createTestContext();
    viewerApp = await buildViewerApp(ctx.services, { logRequests: false });
  }, 60_000);
  afterAll(async () => {
    await viewerApp?.close();
    await ctx?.close();
  });

  it('logout', async () => {
    const p = await patientWithStudy(ctx, 'grant-logout@example.com');
    const { read } = await openViewer(ctx, viewerApp, p.authToken, p.studyId);
    await warm(ctx, read);
    const out = await call(ctx, { method: 'POST', url: '/api/auth/logout', headers: bearer(p.authToken) });
    expect(out.statusCode).toBe(200);
    expect(await readSoonAfter(Date.now(), read)).toBe(401);
  });

  it('password reset', async () => {
    const email = 'grant-reset@example.com';
    const p = await patientWithStudy(ctx, email);
    const { read } = await openViewer(ctx, viewerApp, p.authToken, p.studyId);
    expect(
      (await call(ctx, { method: 'POST', url: '/api/auth/forgot-password', payload: { email } })).statusCode,
    ).toBe(200);
    const mail = await eventually(async () => {
      const [row] = await ctx.services.database.db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.to, email))
        .orderBy(desc(mailOutbox.createdAt));
      return row?.subject.includes('Reset your') ? row : undefined;
    });
    const link = new URL(/(http\S+reset-password\S+)/.exec(mail.text)![1]!);
    await warm(ctx, read);
    const reset = await call(ctx, {
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { email, challenge: link.searchParams.get('challenge'), newPassword: 'N3w!Passw0rd' },
    });
    expect(reset.statusCode).toBe(200);
    expect(await readSoonAfter(Date.now(), read)).toBe(401);
  });

  it('sign out other devices, and signing out one device from the list of sessions', async () => {
    const email = 'grant-others@example.com';
    const p = await patientWithStudy(ctx, email);
    const laptop = await login(ctx, email);
    const tablet = await login(ctx, email);
    const mine = await openViewer(ctx, viewerApp, p.authToken, p.studyId);
    const onLaptop = await openViewer(ctx, viewerApp, laptop.authToken, p.studyId);
    const onTablet = await openViewer(ctx, viewerApp, tablet.authToken, p.studyId);
    await warm(ctx, onLaptop.read);
    await warm(ctx, onTablet.read);

    // Signing out one device from the list of sessions ends that device's grant only.
    const [tabletSession] = await ctx.services.database.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(eq(sessions.authTokenHash, hashToken(tablet.authToken)));
    const one = await call(ctx, {
      method: 'DELETE',
      url: `/api/auth/sessions/${tabletSession!.id}`,
      headers: bearer(p.authToken),
    });
    expect(one.statusCode).toBe(200);
    const oneAt = Date.now();
    expect(await readSoonAfter(oneAt, onTablet.read)).toBe(401);
    expect((await onLaptop.read()).statusCode).toBe(200);

    await warm(ctx, mine.read);
    const others = await call(ctx, {
      method: 'POST',
      url: '/api/auth/sessions/revoke-others',
      headers: bearer(p.authToken),
    });
    expect(others.statusCode).toBe(200);
    const at = Date.now();
    expect(await readSoonAfter(at, onLaptop.read)).toBe(401);
    expect((await mine.read()).statusCode).toBe(200);
  });

  it('account disabled by an admin', async () => {
    const admin = await adminToken(ctx);
    const p = await patientWithStudy(ctx, 'grant-disabled@example.com');
    const { read } = await openViewer(ctx, viewerApp, p.authToken, p.studyId);
    await warm(ctx, read);
    const disable = await call(ctx, {
      method: 'POST',
      url: `/api/admin/users/${p.id}/disable`,
      headers: bearer(admin),
      payload: { reason: 'Account compromised' },
    });
    expect(disable.statusCode).toBe(200);
    expect(await readSoonAfter(Date.now(), read)).toBe(401);
  });

  it('a session ended behind the app’s back (a script, another process) ends its grants too', async () => {
    const p = await patientWithStudy(ctx, 'grant-sql@example.com');
    const { read, grant } = await openViewer(ctx, viewerApp, p.authToken, p.studyId);
    await warm(ctx, read);
    await ctx.services.database.sql.executeSql(
      `update sessions set revoked_at = now(), revoked_reason = 'admin'
         where id = (select session_id from viewer_grants where token_hash = $1)`,
      [createHash('sha256').update(grant).digest('hex')],
    );
    await ctx.services.changes.settled();
    expect((await read()).statusCode).toBe(401);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('viewer grants, two app instances on one database', () => {
  let a: TestContext;
  let b: TestContext;
  let viewerB: FastifyInstance;

  beforeAll(async () => {
    a = await createTestContext();
    b = await createTestContext({}, { sameDatabaseAs: a });
    viewerB = await buildViewerApp(b.services, { logRequests: false });
  }, 60_000);
  afterAll(async () => {
    await viewerB?.close();
    await b?.close();
    await a?.close();
  });

  // The other instance hears the session's end when PostgreSQL delivers the notification, sent at
  // commit; `settled()` is one round trip on its listening connection, so the read is not raced
  // against that socket read.
  it('a session ended on one instance ends its grant on the other', async () => {
    const p = await patientWithStudy(a, 'grant-two@example.com');
    const { read } = await openViewer(b, viewerB, p.authToken, p.studyId);
    await warm(b, read);
    const out = await call(a, { method: 'POST', url: '/api/auth/logout', headers: bearer(p.authToken) });
    expect(out.statusCode).toBe(200);
    const at = Date.now();
    await b.services.changes.settled();
    expect(await readSoonAfter(at, read)).toBe(401);
  });

  it('an account disabled on one instance ends its grants on the other', async () => {
    const admin = await adminToken(a);
    const p = await patientWithStudy(a, 'grant-two-disabled@example.com');
    const { read } = await openViewer(b, viewerB, p.authToken, p.studyId);
    await warm(b, read);
    const disable = await call(a, {
      method: 'POST',
      url: `/api/admin/users/${p.id}/disable`,
      headers: bearer(admin),
      payload: {},
    });
    expect(disable.statusCode).toBe(200);
    const at = Date.now();
    await b.services.changes.settled();
    expect(await readSoonAfter(at, read)).toBe(401);
  });
});
