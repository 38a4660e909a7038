import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, desc, eq } from 'drizzle-orm';
import {
  auditEvents,
  mailOutbox,
  notifications,
  providers,
  studies,
  studyShares,
  users,
} from '../../../src/db/schema/index';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let owner: Patient;
let reader: Patient;
let stranger: Patient;

const db = () => ctx.services.database.db;
const OWNER = 'owner-share@example.com';
const READER = 'reader-share@example.com';

/** A confirmed email (what the emailed confirmation link does), once the app's caches know it. */
const confirmEmail = async (p: Patient) => {
  await db().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, p.id));
  await ctx.services.changes.settled();
  await eventually(async () => (await call(p, 'GET', '/api/auth/me')).json().emailVerified === true);
};
/** Settings → Privacy & Sharing → Share Medical Records. */
const allowSharing = async (p: Patient, on = true) => {
  const res = await call(p, 'PUT', `/api/users/${p.id}`, { shareMedicalData: on });
  expect(res.statusCode).toBe(200);
};

async function newStudy(ownerId: string, description = 'Shared CT'): Promise<string> {
  const studyUid = uid();
  const seriesUid = uid();
  const files = [1, 2].map((n) =>
    makeDicom({ studyUid, seriesUid, sopUid: uid(), instanceNumber: n, studyDescription: description }),
  );
  const [id] = await ingestFiles(ctx, ownerId, files);
  return id!;
}

const call = (
  p: Patient | undefined,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: Record<string, unknown>,
) => ctx.app.inject({ method, url, headers: p?.auth ?? {}, ...(payload !== undefined ? { payload } : {}) });

const shareByEmail = (p: Patient, studyId: string, email: string) =>
  call(p, 'POST', '/api/users/shares', { email, studyId, addProvider: false });

const sharedWith = async (p: Patient) =>
  (await call(p, 'GET', `/api/users/shares/targetUser/${p.id}`)).json().data as Array<{
    _id: string;
    owner: { email: string };
    study: { metadata: { studyDescription: string } };
  }>;

async function mailsTo(to: string) {
  return db().select().from(mailOutbox).where(eq(mailOutbox.to, to)).orderBy(desc(mailOutbox.createdAt));
}

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await newPatient(ctx, OWNER);
  reader = await newPatient(ctx, READER);
  stranger = await newPatient(ctx, 'stranger-share@example.com');
  for (const p of [owner, reader, stranger]) await confirmEmail(p);
  await allowSharing(owner);
});
afterAll(async () => {
  await ctx?.close();
});

describe('sharing a study by email', () => {
  it('reaches a confirmed account at once, which may view but never download, delete, share or transfer', async () => {
    const studyId = await newStudy(owner.id, 'Knee MRI');
    const res = await shareByEmail(owner, studyId, READER.toUpperCase());
    expect(res.statusCode).toBe(201);
    expect(res.json().message).toBe(`You invited ${READER.toUpperCase()} to view your study`);
    expect(res.json().data.accepted).toBe(true);

    const list = await sharedWith(reader);
    expect(list.map((s) => s._id)).toContain(studyId);
    const row = list.find((s) => s._id === studyId)!;
    expect(row.owner.email).toBe(OWNER);
    expect(row.study.metadata.studyDescription).toBe('Knee MRI');

    expect((await call(reader, 'GET', `/api/studies/study/${studyId}`)).statusCode).toBe(200);
    expect((await call(reader, 'GET', `/api/studies/${studyId}/thumbnail`)).statusCode).toBe(200);
    expect((await call(reader, 'GET', `/api/dicom/viewer/${studyId}`)).statusCode).toBe(200);

    expect((await call(reader, 'GET', `/api/studies/download/${studyId}`)).statusCode).toBe(404);
    expect((await call(reader, 'DELETE', `/api/studies/${reader.id}/${studyId}`)).statusCode).toBe(404);
    expect((await call(reader, 'DELETE', `/api/studies/${owner.id}/${studyId}`)).statusCode).toBe(404);
    expect((await shareByEmail(reader, studyId, 'third@example.com')).statusCode).toBe(404);
    expect(
      (
        await call(reader, 'PUT', '/api/studies/ownership/transfer', {
          studyId,
          requesterEmail: 'x@example.com',
        })
      ).statusCode,
    ).toBe(404);
    expect((await call(reader, 'GET', `/api/users/shares/study/${studyId}`)).statusCode).toBe(404);
    expect((await call(reader, 'GET', `/api/studies/${studyId}/access`)).statusCode).toBe(404);

    // The recipient was told, without patient data in the text.
    const [note] = await db()
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.userId, reader.id), eq(notifications.title, 'A study was shared with you')),
      );
    expect(note?.description).not.toContain('Knee MRI');
  });

  it('answers the spec messages for duplicates, self-shares, strangers and sharing turned off', async () => {
    const studyId = await newStudy(owner.id);
    expect((await shareByEmail(owner, studyId, 'dup@example.com')).statusCode).toBe(201);
    const again = await shareByEmail(owner, studyId, 'DUP@example.com');
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('This study is already shared with DUP@example.com.');
    expect((await shareByEmail(owner, studyId, OWNER)).statusCode).toBe(400);
    expect((await shareByEmail(owner, studyId, 'not-an-email')).statusCode).toBe(400);
    expect((await shareByEmail(stranger, studyId, 'x@example.com')).statusCode).toBe(404);

    await allowSharing(owner, false);
    const off = await shareByEmail(owner, studyId, 'later@example.com');
    expect(off.statusCode).toBe(403);
    expect(off.json().error).toMatch(/Share Medical Records/);
    await allowSharing(owner, true);
  });

  it('closes every recipient out while the owner has sharing turned off, and reopens when it is on', async () => {
    const studyId = await newStudy(owner.id);
    await shareByEmail(owner, studyId, READER);
    expect((await call(reader, 'GET', `/api/studies/study/${studyId}`)).statusCode).toBe(200);
    await allowSharing(owner, false);
    expect((await call(reader, 'GET', `/api/studies/study/${studyId}`)).statusCode).toBe(404);
    expect((await sharedWith(reader)).map((s) => s._id)).not.toContain(studyId);
    await allowSharing(owner, true);
    expect((await call(reader, 'GET', `/api/studies/study/${studyId}`)).statusCode).toBe(200);
  });

  it('revoking ends access at once: list, API and the viewer credential', async () => {
    const studyId = await newStudy(owner.id);
    const share = (await shareByEmail(owner, studyId, READER)).json().data as { id: string };
    const viewer = (await call(reader, 'GET', `/api/dicom/viewer/${studyId}`)).json() as { url: string };
    const grant = new URL(viewer.url).hash.replace('#grant=', '');
    const grantPrincipal = await ctx.services.viewerGrants.verify(grant);
    expect(grantPrincipal).toBeTruthy();

    expect((await call(stranger, 'DELETE', `/api/users/shares/${share.id}`)).statusCode).toBe(404);
    expect((await call(reader, 'DELETE', `/api/users/shares/${share.id}`)).statusCode).toBe(404);
    const revoked = await call(owner, 'DELETE', `/api/users/shares/${share.id}`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().message).toBe('Provider access revoked.');
    expect((await call(owner, 'DELETE', `/api/users/shares/${share.id}`)).statusCode).toBe(404);

    expect((await sharedWith(reader)).map((s) => s._id)).not.toContain(studyId);
    expect((await call(reader, 'GET', `/api/studies/study/${studyId}`)).statusCode).toBe(404);
    await expect(
      ctx.services.access.requireStudyAccess(
        { userId: reader.id, role: 'patient', via: 'grant', studyId },
        'read',
        { id: studyId },
        { requestId: 't', ip: '127.0.0.1' },
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const shares = (await call(owner, 'GET', `/api/users/shares/study/${studyId}`)).json().data as unknown[];
    expect(shares).toHaveLength(0);
  });
});

describe('the Shared Studies list', () => {
  it('answers 304 while nothing changed and the new list as soon as anything does', async () => {
    const url = `/api/users/shares/targetUser/${reader.id}`;
    const first = await call(reader, 'GET', url);
    const etag = String(first.headers.etag);
    const again = await ctx.app.inject({ url, headers: { ...reader.auth, 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    // A study the owner adds to the shares, then a change of the owner's name: each shows at once.
    const studyId = await newStudy(owner.id);
    await shareByEmail(owner, studyId, READER);
    const changed = await ctx.app.inject({ url, headers: { ...reader.auth, 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect((changed.json().data as Array<{ _id: string }>).map((s) => s._id)).toContain(studyId);
    expect((await call(owner, 'PUT', `/api/users/${owner.id}`, { name: 'Renamed Owner' })).statusCode).toBe(
      200,
    );
    const renamed = (await sharedWith(reader)).find((s) => s._id === studyId);
    expect(renamed?.owner).toMatchObject({ email: OWNER });
    expect((renamed?.owner as { name?: string }).name).toBe('Renamed Owner');
    const gz = await ctx.app.inject({ url, headers: { ...reader.auth, 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');

    // API clients may page it: slices of the same list, with its length.
    const all = (await sharedWith(reader)).map((s) => s._id);
    expect(all.length).toBeGreaterThanOrEqual(1);
    const paged = await ctx.app.inject({ url: `${url}?offset=0&limit=1`, headers: reader.auth });
    expect(paged.json()).toMatchObject({ data: [{ _id: all[0] }], total: all.length });
    expect(paged.headers.etag).not.toBe(changed.headers.etag);
    const past = await ctx.app.inject({ url: `${url}?offset=${all.length}`, headers: reader.auth });
    expect(past.json()).toEqual({ data: [], total: all.length });
  });
});

describe('sharing with a provider', () => {
  it('reaches the professional account an admin linked to the provider, and lists under that provider', async () => {
    // An approved professional with a confirmed email, linked to a directory provider.
    const doc = await newPatient(ctx, 'linked-doc@example.com');
    await db()
      .update(users)
      .set({ role: 'professional', accountStatus: 'active' })
      .where(eq(users.id, doc.id));
    await confirmEmail(doc);
    const [provider] = await db()
      .update(providers)
      .set({ linkedUserId: doc.id })
      .where(eq(providers.id, (await db().select({ id: providers.id }).from(providers).limit(1))[0]!.id))
      .returning();
    const studyId = await newStudy(owner.id);
    const res = await call(owner, 'POST', '/api/users/shares', { providerId: provider!.id, studyId });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.provider.id).toBe(provider!.id);
    expect(res.json().data.accepted).toBe(true);
    expect((await sharedWith(doc)).map((s) => s._id)).toContain(studyId);
    const listed = await call(owner, 'GET', `/api/users/shares/provider/${provider!.id}`);
    expect((listed.json().data as Array<{ study: { _id: string } }>).map((s) => s.study._id)).toContain(
      studyId,
    );
    // Another user sees none of the owner's shares with that provider.
    expect((await call(stranger, 'GET', `/api/users/shares/provider/${provider!.id}`)).json().data).toEqual(
      [],
    );
    expect(
      (
        await call(owner, 'POST', '/api/users/shares', {
          providerId: '00000000-0000-4000-8000-000000000000',
          studyId,
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe('what is addressed to an email reaches only an account that confirmed it', () => {
  it('waits for an unconfirmed account until it confirms the email', async () => {
    const late = await newPatient(ctx, 'late-confirm@example.com');
    const studyId = await newStudy(owner.id);
    const res = await shareByEmail(owner, studyId, 'late-confirm@example.com');
    expect(res.json().data.accepted).toBe(false);
    expect(await sharedWith(late)).toHaveLength(0);
    expect((await call(late, 'GET', `/api/studies/study/${studyId}`)).statusCode).toBe(404);
    await confirmEmail(late);
    expect((await sharedWith(late)).map((s) => s._id)).toEqual([studyId]);
  });

  it('emails an unknown address a link whose token attaches the share to the account that signs up with it', async () => {
    const email = 'newcomer@example.com';
    const studyId = await newStudy(owner.id);
    const share = (await shareByEmail(owner, studyId, email)).json().data as { id: string };
    const mail = await eventually(async () => (await mailsTo(email))[0]);
    expect(mail.subject).toContain('shared a medical imaging study with you');
    const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
    expect(link.searchParams.get('mode')).toBe('shared_studies');
    expect(link.searchParams.get('shareId')).toBe(share.id);
    const token = link.searchParams.get('shareToken')!;

    // Someone else cannot take it, with or without the token.
    expect(
      (await call(stranger, 'PUT', `/api/users/shares/${share.id}`, { targetUser: stranger.id, token }))
        .statusCode,
    ).toBe(404);
    const newcomer = await newPatient(ctx, email);
    expect(
      (await call(newcomer, 'PUT', `/api/users/shares/${share.id}`, { targetUser: newcomer.id, token: 'x' }))
        .statusCode,
    ).toBe(404);
    const linked = await call(newcomer, 'PUT', `/api/users/shares/${share.id}`, {
      targetUser: newcomer.id,
      token,
    });
    expect(linked.statusCode).toBe(200);
    expect((await sharedWith(newcomer)).map((s) => s._id)).toEqual([studyId]);
    const [me] = await db().select().from(users).where(eq(users.id, newcomer.id));
    expect(me?.emailVerifiedAt).not.toBeNull();
  });

  it('escapes what users typed in the emails it sends', async () => {
    await call(owner, 'PUT', `/api/users/${owner.id}`, { name: '<img src=x onerror=alert(1)>' });
    const studyId = await newStudy(owner.id);
    await shareByEmail(owner, studyId, 'escape@example.com');
    const mail = await eventually(async () => (await mailsTo('escape@example.com'))[0]);
    expect(mail.html).not.toContain('<img src=x');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    await call(owner, 'PUT', `/api/users/${owner.id}`, { name: 'Owen Owner' });
  });
});

describe('ownership', () => {
  it('moves the study, its storage and its shares by email; the old owner loses it', async () => {
    const heir = await newPatient(ctx, 'heir@example.com');
    await confirmEmail(heir);
    const studyId = await newStudy(owner.id);
    await shareByEmail(owner, studyId, READER);
    const [{ size }] = (await db()
      .select({ size: studies.sizeBytes })
      .from(studies)
      .where(eq(studies.id, studyId))) as [{ size: number }];
    const usedOf = async (id: string) =>
      (await db().select({ u: users.usedStorageBytes }).from(users).where(eq(users.id, id)))[0]!.u;
    const ownerBefore = await usedOf(owner.id);

    expect(
      (
        await call(owner, 'PUT', '/api/studies/ownership/transfer', {
          studyId,
          requesterEmail: 'nobody@example.com',
        })
      ).statusCode,
    ).toBe(404);
    const moved = await call(owner, 'PUT', '/api/studies/ownership/transfer', {
      studyId,
      requesterEmail: 'heir@example.com',
    });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().newOwnerId).toBe(heir.id);
    expect(await usedOf(owner.id)).toBe(ownerBefore - size);
    expect(await usedOf(heir.id)).toBe(size);
    expect((await call(owner, 'GET', `/api/studies/study/${studyId}`)).statusCode).toBe(404);
    expect((await call(heir, 'GET', `/api/studies/download/${studyId}`)).statusCode).toBe(200);
    // The share moved with the study; it opens again once the heir allows sharing.
    expect((await sharedWith(reader)).map((s) => s._id)).not.toContain(studyId);
    await allowSharing(heir);
    const row = (await sharedWith(reader)).find((s) => s._id === studyId);
    expect(row?.owner.email).toBe('heir@example.com');
  });

  it('refuses a recipient without room in their quota', async () => {
    const full = await newPatient(ctx, 'full@example.com');
    await confirmEmail(full);
    await db().update(users).set({ maxStorageBytes: 10 }).where(eq(users.id, full.id));
    const studyId = await newStudy(owner.id);
    const res = await call(owner, 'PUT', '/api/studies/ownership/transfer', {
      studyId,
      requesterEmail: 'full@example.com',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/enough free storage/);
    const [row] = await db().select().from(studies).where(eq(studies.id, studyId));
    expect(row?.ownerId).toBe(owner.id);
  });

  it('two racing transfers of one study end with exactly one owner', async () => {
    const a = await newPatient(ctx, 'race-a@example.com');
    const b = await newPatient(ctx, 'race-b@example.com');
    await confirmEmail(a);
    await confirmEmail(b);
    const studyId = await newStudy(owner.id);
    const results = await Promise.all([
      call(owner, 'PUT', '/api/studies/ownership/transfer', {
        studyId,
        requesterEmail: 'race-a@example.com',
      }),
      call(owner, 'PUT', '/api/studies/ownership/transfer', {
        studyId,
        requesterEmail: 'race-b@example.com',
      }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 404]);
    const [row] = await db().select().from(studies).where(eq(studies.id, studyId));
    const winner = results.find((r) => r.statusCode === 200)!.json().newOwnerId;
    expect(row?.ownerId).toBe(winner);
    const used = await db().select({ id: users.id, u: users.usedStorageBytes }).from(users);
    const loser = winner === a.id ? b.id : a.id;
    expect(used.find((u) => u.id === loser)?.u).toBe(0);
  });

  it('a recipient requests ownership; the owner is told with a link that approves it', async () => {
    const studyId = await newStudy(owner.id);
    await shareByEmail(owner, studyId, READER);
    // No open request: the id alone moves nothing.
    expect(
      (await call(owner, 'PUT', '/api/studies/ownership/transfer', { studyId, requesterId: reader.id }))
        .statusCode,
    ).toBe(404);
    expect((await call(stranger, 'POST', '/api/studies/ownership/request', { studyId })).statusCode).toBe(
      404,
    );
    expect((await call(owner, 'POST', '/api/studies/ownership/request', { studyId })).statusCode).toBe(409);
    const asked = await call(reader, 'POST', '/api/studies/ownership/request', { studyId });
    expect(asked.statusCode).toBe(200);
    expect(asked.json().message).toBe('Your ownership request was sent to the owner.');
    expect((await call(reader, 'POST', '/api/studies/ownership/request', { studyId })).json().message).toBe(
      'Your request was already sent to the owner.',
    );
    const mail = await eventually(async () =>
      (await mailsTo(OWNER)).find((m) => m.subject.includes('Ownership requested')),
    );
    const link = new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
    expect(Object.fromEntries(link.searchParams)).toEqual({
      studyId,
      requesterId: reader.id,
      ownerId: owner.id,
    });

    const approved = await call(owner, 'PUT', '/api/studies/ownership/transfer', {
      studyId,
      requesterId: reader.id,
    });
    expect(approved.statusCode).toBe(200);
    const [row] = await db().select().from(studies).where(eq(studies.id, studyId));
    expect(row?.ownerId).toBe(reader.id);
    // The reader owns it now, so their share of it ended.
    const live = await db()
      .select()
      .from(studyShares)
      .where(and(eq(studyShares.studyId, studyId), eq(studyShares.targetUserId, reader.id)));
    expect(live.every((s) => s.revokedAt !== null)).toBe(true);
  });
});

describe('access receipts', () => {
  it('list who can open the study and what they did; the owner hears of the first open once', async () => {
    const studyId = await newStudy(owner.id);
    await shareByEmail(owner, studyId, READER);
    await call(reader, 'GET', `/api/dicom/viewer/${studyId}`);
    await call(reader, 'GET', `/api/dicom/viewer/${studyId}`);
    const receipts = await call(owner, 'GET', `/api/studies/${studyId}/access`);
    expect(receipts.statusCode).toBe(200);
    const body = receipts.json() as {
      current: Array<{ email: string; firstOpenedAt: string | null; accepted: boolean }>;
      events: Array<{ action: string; actor: string }>;
    };
    expect(body.current).toEqual([expect.objectContaining({ email: READER, accepted: true })]);
    expect(body.current[0]!.firstOpenedAt).not.toBeNull();
    expect(body.events.filter((e) => e.action === 'Opened in the viewer')).toHaveLength(2);
    expect(body.events.some((e) => e.action === 'Shared' && e.actor === 'You')).toBe(true);
    const opened = await db()
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.userId, owner.id), eq(notifications.title, 'Your shared study was opened')),
      );
    expect(opened.length).toBeGreaterThanOrEqual(1);
    const before = opened.length;
    await call(reader, 'GET', `/api/dicom/viewer/${studyId}`);
    const after = await db()
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.userId, owner.id), eq(notifications.title, 'Your shared study was opened')),
      );
    expect(after.length).toBe(before);
  });

  it('audits shares, revocations and transfers', async () => {
    const actions = (await db().select({ a: auditEvents.action }).from(auditEvents)).map((r) => r.a);
    for (const a of ['study.share', 'study.unshare', 'study.ownership_transfer', 'study.ownership_request'])
      expect(actions).toContain(a);
  });
});
