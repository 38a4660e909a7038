import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, like } from 'drizzle-orm';
import { INVITATION_INVALID_MESSAGE } from '@mi/contracts/sharing';
import {
  auditEvents,
  invitations,
  mailOutbox,
  notifications,
  studies,
  studyUploads,
  users,
} from '../../../src/db/schema/index';
import { JOB_SCHEMA } from '../../../src/jobs/queue';
import { createInvitationTokens } from '../../../src/modules/invitations/invitation-token';
import {
  buildZip,
  jobSettled,
  listen,
  makeDicom,
  newPatient,
  storageToken,
  uid,
  type Patient,
} from '../../helpers/studies';
import {
  createTestContext,
  eventually,
  registerUser,
  strongPassword,
  type TestContext,
} from '../../helpers/test-app';

let ctx: TestContext;
let base: string;
let ada: Patient;
let bob: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-invites@example.com');
  bob = await newPatient(ctx, 'bob-invites@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

const db = () => ctx.services.database.db;
const get = (p: Patient, url: string) => ctx.app.inject({ method: 'GET', url, headers: p.auth });
const post = (p: Patient, url: string, payload?: object) =>
  ctx.app.inject({ method: 'POST', url, headers: p.auth, ...(payload ? { payload } : {}) });
const tokenOf = (url: string) => new URL(url).searchParams.get('invite')!;

const b64 = (s: string) => Buffer.from(s).toString('base64');
/** A whole tus upload (create, then one PATCH) with extra Upload-Metadata; returns the create answer. */
async function upload(p: Patient, data: Buffer, metadata: Record<string, string>) {
  const objectName = `${p.id}/${randomUUID()}/study.zip`;
  const headers = { 'tus-resumable': '1.0.0', authorization: `Bearer ${await storageToken(ctx, p)}` };
  const meta = Object.entries({ objectName, filetype: 'application/zip', ...metadata })
    .map(([k, v]) => `${k} ${b64(v)}`)
    .join(',');
  const created = await fetch(`${base}/api/uploads`, {
    method: 'POST',
    headers: { ...headers, 'upload-length': String(data.length), 'upload-metadata': meta },
  });
  if (created.status === 201) {
    const patched = await fetch(`${base}/api/uploads/${objectName}`, {
      method: 'PATCH',
      headers: { ...headers, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: data,
    });
    expect(patched.status).toBe(204);
  }
  return { objectName, created };
}

function studyZip(description: string) {
  const studyUid = uid();
  const seriesUid = uid();
  return buildZip([
    { name: 'a.dcm', data: makeDicom({ studyUid, seriesUid, sopUid: uid(), studyDescription: description }) },
    { name: 'b.dcm', data: makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: 2 }) },
  ]);
}

async function outboxTo(email: string) {
  return eventually(async () => {
    const rows = await db().select().from(mailOutbox).where(eq(mailOutbox.to, email));
    return rows.length > 0 ? rows : undefined;
  });
}

describe('invitation tokens', () => {
  it('verify only with the same secret and an untouched signature', () => {
    const tokens = createInvitationTokens('secret-one-secret-one-secret-one-1');
    const id = randomUUID();
    const token = tokens.sign(id);
    expect(tokens.verify(token)).toBe(id);
    expect(tokens.verify(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(tokens.verify(`${randomUUID()}.${token.split('.')[1]}`)).toBeNull();
    expect(createInvitationTokens('another-secret-another-secret-12').verify(token)).toBeNull();
    for (const bad of ['', 'x', '.', `${id}.`, 'not-a-uuid.abc', null, undefined])
      expect(tokens.verify(bad)).toBeNull();
  });
});

describe('invite link', () => {
  it('is shown again, carries invitedBy, mode and a token, and expires after 30 days', async () => {
    const first = await get(ada, '/api/invitations/link');
    expect(first.statusCode).toBe(200);
    const link = first.json();
    const url = new URL(link.url);
    expect(url.searchParams.get('invitedBy')).toBe(ada.id);
    expect(url.searchParams.get('mode')).toBe('direct_upload');
    expect(tokenOf(link.url)).toMatch(/^[0-9a-f-]{36}\.[\w-]+$/);
    expect((await get(ada, '/api/invitations/link')).json()).toEqual(link);
    const days = (Date.parse(link.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    const check = await get(bob, `/api/invitations/check?token=${encodeURIComponent(tokenOf(link.url))}`);
    expect(check.json()).toMatchObject({ valid: true, kind: 'direct_upload', inviterName: 'Ada Lovelace' });
    expect(check.json().room.remainingBytes).toBeGreaterThan(0);

    // Expiry is read from the row (sessions would not survive moving the clock 30 days).
    await db()
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invitations.id, link.id));
    const expired = await get(bob, `/api/invitations/check?token=${encodeURIComponent(tokenOf(link.url))}`);
    expect(expired.json()).toMatchObject({ valid: false, message: INVITATION_INVALID_MESSAGE });
    // A new link replaces the expired one.
    expect((await get(ada, '/api/invitations/link')).json().id).not.toBe(link.id);
  });

  it('is revoked and replaced: the old token stops working', async () => {
    const old = (await get(ada, '/api/invitations/link')).json();
    const renewed = await post(ada, '/api/invitations/link');
    expect(renewed.statusCode).toBe(200);
    expect(renewed.json().id).not.toBe(old.id);
    const check = (url: string) =>
      get(bob, `/api/invitations/check?token=${encodeURIComponent(tokenOf(url))}`);
    expect((await check(old.url)).json().valid).toBe(false);
    expect((await check(renewed.json().url)).json().valid).toBe(true);
    expect((await get(ada, '/api/invitations/link')).json().id).toBe(renewed.json().id);
    const audited = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'invitation.revoke'), eq(auditEvents.targetId, old.id)));
    expect(audited).toHaveLength(1);
  });

  it('a forged token is not valid', async () => {
    const res = await get(bob, `/api/invitations/check?token=${randomUUID()}.forged`);
    expect(res.json()).toMatchObject({ valid: false, kind: null, inviterName: null });
    expect((await ctx.app.inject({ method: 'GET', url: '/api/invitations/check?token=x' })).statusCode).toBe(
      401,
    );
  });
});

describe('shared uploads', () => {
  it('land with the inviter, charge the inviter and notify them; the uploader gains nothing', async () => {
    const link = (await get(ada, '/api/invitations/link')).json();
    const token = tokenOf(link.url);
    const [before] = await db().select().from(users).where(eq(users.id, ada.id));
    const zip = studyZip('Shared study');
    const { objectName, created } = await upload(bob, zip, { invitation: token, targetUserId: ada.id });
    expect(created.status).toBe(201);
    const res = await post(bob, '/api/studies/process', {
      prefix: objectName,
      jobContext: { uploadType: 'shared', targetUserId: ada.id, invitation: token },
    });
    expect(res.statusCode).toBe(202);
    await jobSettled(ctx, res.json().jobId);

    const [row] = await db().select().from(studyUploads).where(eq(studyUploads.objectName, objectName));
    expect(row).toMatchObject({
      ownerId: ada.id,
      uploadedBy: bob.id,
      invitationId: link.id,
      uploadType: 'shared',
      status: 'completed',
    });
    const owned = await db().select().from(studies).where(eq(studies.ownerId, ada.id));
    expect(owned.map((s) => s.studyDescription)).toContain('Shared study');
    expect(await db().select().from(studies).where(eq(studies.ownerId, bob.id))).toHaveLength(0);

    const [after] = await db().select().from(users).where(eq(users.id, ada.id));
    expect(after!.usedStorageBytes).toBeGreaterThan(before!.usedStorageBytes);
    const [bobRow] = await db().select().from(users).where(eq(users.id, bob.id));
    expect(bobRow!.usedStorageBytes).toBe(0);

    const notes = await db().select().from(notifications).where(eq(notifications.userId, ada.id));
    expect(notes.map((n) => n.title)).toContain('New study uploaded for you');
    expect(notes.every((n) => !n.description.includes('Shared study'))).toBe(true);
    expect(notes.map((n) => n.title)).not.toContain('Your upload was delivered');

    // Bob is told how it ended (nothing of the images named), and his pending jobs listed it meanwhile.
    const bobNotes = await db().select().from(notifications).where(eq(notifications.userId, bob.id));
    const delivered = bobNotes.find((n) => n.title === 'Your upload was delivered');
    expect(delivered?.description).toContain(
      '1 study with 2 images went to the account of the person who invited you',
    );
    expect(bobNotes.every((n) => !n.description.includes('Shared study'))).toBe(true);
    const job = await ctx.services.database.sql.executeSql(
      `select data from ${JOB_SCHEMA}.job where id = $1 union all select data from ${JOB_SCHEMA}.archive where id = $1`,
      [res.json().jobId],
    );
    expect((job.rows[0] as { data: Record<string, unknown> }).data).toMatchObject({
      userId: ada.id,
      uploadedBy: bob.id,
    });

    // Bob sees nothing of it.
    const study = owned.find((s) => s.studyDescription === 'Shared study')!;
    expect((await get(bob, `/api/studies/${study.id}`)).statusCode).toBe(404);
    expect((await get(bob, `/api/studies/user/${bob.id}`)).json().data).toHaveLength(0);
    const [inv] = await db().select().from(invitations).where(eq(invitations.id, link.id));
    expect(inv!.uploads).toBe(1);
  });

  it('a shared upload that cannot be processed tells both the inviter and the sender why', async () => {
    const token = tokenOf((await get(ada, '/api/invitations/link')).json().url);
    const zip = buildZip([{ name: 'notes.txt', data: Buffer.from('not an image') }]);
    const { objectName } = await upload(bob, zip, { invitation: token, targetUserId: ada.id });
    const res = await post(bob, '/api/studies/process', {
      prefix: objectName,
      jobContext: { uploadType: 'shared', targetUserId: ada.id, invitation: token },
    });
    expect(res.statusCode).toBe(202);
    await jobSettled(ctx, res.json().jobId);
    const titles = async (userId: string) =>
      (await db().select().from(notifications).where(eq(notifications.userId, userId))).map((n) => n.title);
    expect(await titles(ada.id)).toContain('No study found in your upload');
    const bobNotes = await db().select().from(notifications).where(eq(notifications.userId, bob.id));
    const failed = bobNotes.find((n) => n.title === 'Your upload could not be delivered');
    expect(failed?.description).toMatch(
      /^The files you sent through an invite link could not be processed: No DICOM images/,
    );
  });

  it('an invalid, revoked or foreign token is refused and nothing is stored', async () => {
    const link = (await get(ada, '/api/invitations/link')).json();
    const token = tokenOf(link.url);
    const zip = studyZip('Refused study');

    // At upload creation: forged token, wrong inviter.
    for (const metadata of [
      { invitation: `${randomUUID()}.forged`, targetUserId: ada.id },
      { invitation: token, targetUserId: bob.id },
    ]) {
      const { objectName, created } = await upload(bob, zip, metadata);
      expect(created.status).toBe(400);
      expect(await created.text()).toContain(INVITATION_INVALID_MESSAGE);
      expect(await ctx.services.uploadArea.info(objectName)).toBeNull();
    }

    // Uploaded while the link was live, then revoked before processing.
    const { objectName } = await upload(bob, zip, { invitation: token, targetUserId: ada.id });
    await post(ada, '/api/invitations/link');
    const res = await post(bob, '/api/studies/process', {
      prefix: objectName,
      jobContext: { uploadType: 'shared', targetUserId: ada.id, invitation: token },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(INVITATION_INVALID_MESSAGE);
    expect(
      await db().select().from(studyUploads).where(eq(studyUploads.objectName, objectName)),
    ).toHaveLength(0);
    // Without a token at all.
    const bare = await post(bob, '/api/studies/process', {
      prefix: objectName,
      jobContext: { uploadType: 'shared', targetUserId: ada.id },
    });
    expect(bare.statusCode).toBe(400);
    const refused = await db().select().from(studies).where(like(studies.studyDescription, 'Refused%'));
    expect(refused).toHaveLength(0);
  });

  it("checks the inviter's storage, not the uploader's", async () => {
    const carol = await newPatient(ctx, 'carol-invites@example.com');
    const token = tokenOf((await get(carol, '/api/invitations/link')).json().url);
    await db().update(users).set({ maxStorageBytes: 100 }).where(eq(users.id, carol.id));
    const check = await get(bob, `/api/invitations/check?token=${encodeURIComponent(token)}`);
    expect(check.json().room).toEqual({ remainingBytes: 100, maxStorageGB: 0 });
    const { created } = await upload(bob, studyZip('Too big'), { invitation: token, targetUserId: carol.id });
    expect(created.status).toBe(413);
    expect(await created.text()).toContain('the person who invited you');
  });
});

describe('invitation emails', () => {
  it('Invite User emails the invite link with everything escaped, and is audited', async () => {
    const mallory = await registerUser(ctx, 'mallory-invites@example.com', {
      extra: { name: '<img src=x onerror=alert(1)> Mallory' },
    });
    const auth = { authorization: `Bearer ${mallory.json().data.authToken as string}` };
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/invite',
      headers: auth,
      payload: { email: 'friend-invites@example.com' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Invite sent to friend-invites@example.com' });
    const [mail] = await outboxTo('friend-invites@example.com');
    expect(mail!.html).not.toContain('<img src=x');
    expect(mail!.html).toContain('&lt;img src=x onerror=alert(1)&gt; Mallory');
    const link = /href="([^"]+)"/.exec(mail!.html.split('Upload studies')[0]!.split('<a').pop()!)![1]!;
    const url = new URL(link.replaceAll('&amp;', '&'));
    expect(url.searchParams.get('mode')).toBe('direct_upload');
    expect(url.searchParams.get('invitedBy')).toBe(mallory.json().data.id);
    const [row] = await db()
      .select()
      .from(invitations)
      .where(eq(invitations.email, 'friend-invites@example.com'));
    expect(row).toMatchObject({ kind: 'direct_upload', inviterId: mallory.json().data.id });
    expect(url.searchParams.get('invite')).toMatch(new RegExp(`^${row!.id}\\.`));
    const audited = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'invitation.issue'), eq(auditEvents.targetId, row!.id)));
    expect(audited).toHaveLength(1);
    expect(JSON.stringify(audited[0]!.details)).not.toContain('friend-invites');
  });

  it('is rate limited per user with a clear message', async () => {
    const dan = await newPatient(ctx, 'dan-invites@example.com');
    for (let i = 0; i < 20; i++) {
      const ok = await post(dan, '/api/invite', { email: `r${i}-invites@example.com` });
      expect(ok.statusCode).toBe(200);
    }
    const limited = await post(dan, '/api/invite', { email: 'r21-invites@example.com' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toMatch(/20 invitations in the last hour/);
    // Another user is not affected.
    expect((await post(ada, '/api/invite', { email: 'other-invites@example.com' })).statusCode).toBe(200);
    expect((await post(dan, '/api/invite', { email: 'not an email' })).statusCode).toBe(400);
  });
});

describe('provider referrals', () => {
  const professional = (email: string, referral: string, role = 'professional') => ({
    email,
    role,
    name: 'Dana Scully',
    mobilePhone: '+15550111',
    ...(role === 'professional'
      ? {
          license: { number: 'MD-1', state: 'MD', expiryDate: '2031-01-01' },
          specialty: 'Radiology',
          hospital: 'Georgetown Hospital',
          position: 'Attending',
        }
      : {}),
    referral,
  });

  async function referralFor(email: string) {
    const res = await post(ada, '/api/providers/invite', { to: email });
    expect(res.statusCode).toBe(200);
    const [mail] = await outboxTo(email);
    const link = /https?:\/\/[^\s]+\/register\/medical\?[^\s]+/.exec(mail!.text)![0];
    const url = new URL(link);
    expect(url.searchParams.get('email')).toBe(email);
    return url.searchParams.get('referral')!;
  }

  it('completes a professional registration once, verifies the email, and keeps admin approval', async () => {
    const email = 'dana-invites@example.com';
    const referral = await referralFor(email);
    const res = await registerUser(ctx, email, { extra: professional(email, referral) });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.accountStatus).toBe('pending');
    const [user] = await db().select().from(users).where(eq(users.emailNormalized, email));
    expect(user!.emailVerifiedAt).not.toBeNull();
    expect(user!.role).toBe('professional');
    const [inv] = await db().select().from(invitations).where(eq(invitations.email, email));
    expect(inv!.usedBy).toBe(user!.id);
    expect(inv!.usedAt).not.toBeNull();

    // Single use: the same link cannot make a second account.
    const again = await registerUser(ctx, 'dana2-invites@example.com', {
      extra: professional('dana2-invites@example.com', referral),
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe(INVITATION_INVALID_MESSAGE);
  });

  it('refuses another email, a role the invitation does not allow, and a forged token', async () => {
    const email = 'fox-invites@example.com';
    const referral = await referralFor(email);
    const other = await registerUser(ctx, 'mulder-invites@example.com', {
      extra: professional('mulder-invites@example.com', referral),
    });
    expect(other.statusCode).toBe(400);
    const asPatient = await registerUser(ctx, email, { extra: professional(email, referral, 'patient') });
    expect(asPatient.statusCode).toBe(400);
    const forged = await registerUser(ctx, email, {
      extra: professional(email, `${randomUUID()}.forged`),
    });
    expect(forged.statusCode).toBe(400);
    expect(await db().select().from(users).where(eq(users.emailNormalized, email))).toHaveLength(0);
    // The link still works for the right person and role.
    const ok = await registerUser(ctx, email, { extra: professional(email, referral) });
    expect(ok.statusCode).toBe(201);
    // An upload link (no email) is never a referral.
    const linkToken = tokenOf((await get(ada, '/api/invitations/link')).json().url);
    const viaLink = await registerUser(ctx, 'walter-invites@example.com', {
      extra: { referral: linkToken },
      password: strongPassword,
    });
    expect(viaLink.statusCode).toBe(400);
  });
});
