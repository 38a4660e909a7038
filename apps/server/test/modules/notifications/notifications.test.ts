import { readFileSync } from 'node:fs';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox, notifications } from '../../../src/db/schema/index';
import {
  FIXTURES,
  buildZip,
  listen,
  newPatient,
  uploadAndProcess,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, eventually, registerUser, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
});
afterAll(async () => {
  await ctx?.close();
});

const mailsTo = (to: string) =>
  ctx.services.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, to));
const setEmailNotifications = async (p: Patient, on: boolean) => {
  const res = await ctx.app.inject({
    method: 'PUT',
    url: `/api/users/${p.id}`,
    headers: p.auth,
    payload: { emailNotifications: on },
  });
  expect(res.statusCode, res.body).toBe(200);
};
/** Mail is sent by a job: give the queue time to deliver anything it was going to. */
const settle = () => new Promise((r) => setTimeout(r, 1500));
const zip = () => buildZip([{ name: 'disc/CT_small.dcm', data: readFileSync(`${FIXTURES}/CT_small.dcm`) }]);

describe('notify', () => {
  it('writes the in-app notification always, and emails it only when the user allows email', async () => {
    const on = await newPatient(ctx, 'notify-on@example.com');
    const off = await newPatient(ctx, 'notify-off@example.com');
    await setEmailNotifications(off, false);
    for (const p of [on, off])
      await ctx.services.notifications.notify(p.id, {
        type: 'message',
        title: 'Something happened',
        description: 'Open the app to see it.',
        path: '/share',
      });
    const mail = await eventually(async () =>
      (await mailsTo('notify-on@example.com')).find((m) => m.subject === 'Something happened'),
    );
    expect(mail.text).toContain('Open the app to see it.');
    expect(mail.text).toContain('/share');
    await settle();
    // Only this notification's mail counts: the account's own welcome mail may still be on its way.
    expect(
      (await mailsTo('notify-off@example.com')).filter((m) => m.subject === 'Something happened'),
    ).toHaveLength(0);
    for (const p of [on, off]) {
      const rows = await ctx.services.database.db
        .select()
        .from(notifications)
        .where(and(eq(notifications.userId, p.id), eq(notifications.title, 'Something happened')));
      expect(rows).toHaveLength(1);
    }
  });

  it('emails a finished upload only to an owner who allows email, with no patient data', async () => {
    const on = await newPatient(ctx, 'upload-on@example.com');
    const off = await newPatient(ctx, 'upload-off@example.com');
    await setEmailNotifications(off, false);
    await uploadAndProcess(ctx, base, on, zip());
    await uploadAndProcess(ctx, base, off, zip());
    const mail = await eventually(async () =>
      (await mailsTo('upload-on@example.com')).find((m) => m.subject === 'Your upload has been processed'),
    );
    expect(mail.text + mail.html).not.toMatch(/CompressedSamples|CT1|JFK/);
    await settle();
    expect(
      (await mailsTo('upload-off@example.com')).filter((m) => m.subject.includes('upload')),
    ).toHaveLength(0);
    // The in-app notification is there either way.
    const notes = await ctx.app.inject({ url: '/api/notifications/', headers: off.auth });
    expect(notes.json().data[0]).toMatchObject({ title: 'Study processed', read: false });
  }, 60_000);

  it('tells the inviter when their invitation is accepted (no name of the new user)', async () => {
    const inviter = await newPatient(ctx, 'inviter-notify@example.com');
    const email = 'invitee-notify@example.com';
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/providers/invite',
      headers: inviter.auth,
      payload: { to: email },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    // The invitation goes out through the mail job.
    const invite = await eventually(async () => {
      const [row] = await ctx.services.database.db
        .select()
        .from(mailOutbox)
        .where(and(eq(mailOutbox.to, email), like(mailOutbox.text, '%referral=%')));
      return row;
    });
    const referral = new URL(
      /https?:\/\/[^\s]+\/register\/medical\?[^\s]+/.exec(invite!.text)![0],
    ).searchParams.get('referral')!;
    const res = await registerUser(ctx, email, {
      extra: {
        role: 'professional',
        name: 'Dana Scully',
        license: { number: 'MD-1', state: 'MD', expiryDate: '2031-01-01' },
        specialty: 'Radiology',
        hospital: 'Georgetown Hospital',
        referral,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const notes = await ctx.app.inject({ url: '/api/notifications/', headers: inviter.auth });
    const note = notes.json().data.find((n: { title: string }) => n.title === 'Invitation accepted');
    expect(note).toMatchObject({ type: 'message', read: false });
    expect(note.description).not.toContain('Dana');
    const mail = await eventually(async () =>
      (await mailsTo('inviter-notify@example.com')).find((m) => m.subject === 'Invitation accepted'),
    );
    expect(mail.text + mail.html).not.toMatch(/Dana|Scully|invitee-notify/);
  });
});

describe('notifications page', () => {
  it('lists all notifications, read and unread, a page at a time, and marks all read', async () => {
    const p = await newPatient(ctx, 'pager@example.com');
    const other = await newPatient(ctx, 'pager-other@example.com');
    await setEmailNotifications(p, false);
    for (let i = 1; i <= 5; i++)
      await ctx.services.notifications.notify(p.id, {
        type: 'system',
        title: `Note ${i}`,
        description: 'A test notification.',
      });
    await ctx.services.notifications.notify(other.id, {
      type: 'system',
      title: 'Not yours',
      description: 'Someone else’s.',
    });
    const first = (await ctx.app.inject({ url: '/api/notifications/', headers: p.auth })).json();
    const oneId = first.data.find((n: { title: string }) => n.title === 'Note 1')._id as string;
    await ctx.app.inject({ method: 'PUT', url: `/api/notifications/${oneId}/read`, headers: p.auth });

    const page1 = await ctx.app.inject({ url: '/api/notifications/all?page=1&limit=2', headers: p.auth });
    expect(page1.statusCode, page1.body).toBe(200);
    expect(page1.json()).toMatchObject({ page: 1, limit: 2, total: 5, unreadCount: 4 });
    expect(page1.json().data.map((n: { title: string }) => n.title)).toEqual(['Note 5', 'Note 4']);
    const page3 = await ctx.app.inject({ url: '/api/notifications/all?page=3&limit=2', headers: p.auth });
    expect(page3.json().data).toEqual([expect.objectContaining({ title: 'Note 1', read: true })]);
    const past = await ctx.app.inject({ url: '/api/notifications/all?page=9&limit=2', headers: p.auth });
    expect(past.json().data).toEqual([]);
    const bad = await ctx.app.inject({ url: '/api/notifications/all?page=0', headers: p.auth });
    expect(bad.statusCode).toBe(400);

    const all = await ctx.app.inject({ method: 'PUT', url: '/api/notifications/read-all', headers: p.auth });
    expect(all.json()).toMatchObject({ message: 'All notifications marked as read', data: { updated: 4 } });
    const after = await ctx.app.inject({ url: '/api/notifications/', headers: p.auth });
    expect(after.json().unreadCount).toBe(0);
    const theirs = await ctx.app.inject({ url: '/api/notifications/', headers: other.auth });
    expect(theirs.json().unreadCount).toBeGreaterThan(0);
    const anonymous = await ctx.app.inject({ method: 'PUT', url: '/api/notifications/read-all' });
    expect(anonymous.statusCode).toBe(401);
  });
});
