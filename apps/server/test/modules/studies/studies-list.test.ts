import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { studyListItemSchema } from '@mi/contracts/studies';
import { auditEvents, notifications, studies } from '../../../src/db/schema/index';
import { createAuditRepository } from '../../../src/modules/audit/audit.repository';
import { createAuditBuffer } from '../../../src/modules/studies/audit-buffer';
import {
  buildZip,
  listen,
  makeDicom,
  newPatient,
  uid,
  uploadAndProcess,
  type Patient,
} from '../../helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let base: string;
let ada: Patient;
let eve: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-list@example.com');
  eve = await newPatient(ctx, 'eve-list@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

const list = (p: Patient, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: `/api/studies/user/${p.id}`, headers: { ...p.auth, ...headers } });
const upload = async (p: Patient, description: string) => {
  const dcm = makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid(), studyDescription: description });
  const { upload: row } = await uploadAndProcess(ctx, base, p, buildZip([{ name: 'a.dcm', data: dcm }]));
  return row.studyIds![0]!;
};

describe('studies list', () => {
  it('answers with the contract shape, an ETag, and 304 while nothing changed', async () => {
    const id = await upload(ada, 'First');
    const first = await list(ada);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const data = first.json().data as unknown[];
    expect(data).toHaveLength(1);
    expect(studyListItemSchema.strict().parse(data[0])).toMatchObject({
      id,
      metadata: { studyDescription: 'First' },
    });
    // Only what the list pages show: counts, size and the other header fields are read per study.
    expect(Object.keys((data[0] as { metadata: object }).metadata).sort()).toEqual(
      Object.keys(studyListItemSchema.shape.metadata.shape).sort(),
    );
    // The patient's ID, birth date and sex stay out of the bulk list.
    expect(Object.keys((data[0] as { metadata: object }).metadata)).not.toContain('patientId');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);

    const again = await list(ada, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await list(ada, { 'if-none-match': `W/${etag}, "other"` })).statusCode).toBe(304);
    expect((await list(ada, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
    // Someone else's list is still a 404, ETag or not.
    expect((await list(eve, {})).json().data).toEqual([]);
    expect(
      (
        await ctx.app.inject({
          method: 'GET',
          url: `/api/studies/user/${ada.id}`,
          headers: { ...eve.auth, 'if-none-match': etag },
        })
      ).statusCode,
    ).toBe(404);
  });

  it('sends the list gzip-encoded to clients that accept it, with its own ETag', async () => {
    const plain = await list(ada);
    const zipped = await list(ada, { 'accept-encoding': 'br;q=1, gzip;q=0.8' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    expect((await list(ada, { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    for (const etag of [plain.headers.etag, zipped.headers.etag]) {
      expect((await list(ada, { 'accept-encoding': 'gzip', 'if-none-match': String(etag) })).statusCode).toBe(
        304,
      );
    }
  });

  it('pages for API clients: slices of the same list, a total, a tag of their own', async () => {
    const pat = await newPatient(ctx, 'pages-list@example.com');
    // Characters of two, three and four bytes: a page is cut at byte offsets.
    for (const d of ['Ärztlich', 'Ωmega – Übersicht', 'Plain', 'Emoji 🩻']) await upload(pat, d);
    const page = (query: string, headers: Record<string, string> = {}) =>
      ctx.app.inject({
        method: 'GET',
        url: `/api/studies/user/${pat.id}?${query}`,
        headers: { ...pat.auth, ...headers },
      });
    const whole = await list(pat);
    const all = whole.json().data as Array<{ id: string }>;
    expect(all).toHaveLength(4);
    expect(whole.json().total).toBeUndefined();
    for (const [query, from, to] of [
      ['offset=0&limit=2', 0, 2],
      ['offset=2&limit=2', 2, 4],
      ['offset=3&limit=1000', 3, 4],
      ['offset=1', 1, 4],
      ['limit=3', 0, 3],
      ['offset=4', 4, 4],
      ['offset=99&limit=5', 4, 4],
    ] as const) {
      const res = await page(query, { 'accept-encoding': 'gzip' });
      expect(res.statusCode, query).toBe(200);
      // A page is small: sent as it is, whatever the client accepts.
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json() as { data: unknown[]; total: number };
      expect(body, query).toEqual({ data: all.slice(from, to), total: 4 });
      for (const item of body.data) studyListItemSchema.strict().parse(item);
    }
    for (const bad of ['limit=0', 'limit=1001', 'offset=-1', 'limit=two', 'offset=1.5'])
      expect((await page(bad)).statusCode, bad).toBe(400);

    // Each page has its own tag, which moves with the list.
    const first = await page('offset=0&limit=2');
    const tag = String(first.headers.etag);
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect(tag).not.toBe(whole.headers.etag);
    expect(tag).not.toBe((await page('offset=1&limit=2')).headers.etag);
    expect((await page('offset=0&limit=2', { 'if-none-match': tag })).statusCode).toBe(304);
    expect((await page('offset=0&limit=2', { 'if-none-match': String(whole.headers.etag) })).statusCode).toBe(
      200,
    );
    const newest = await upload(pat, 'Newest');
    const moved = await page('offset=0&limit=2', { 'if-none-match': tag });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ data: [{ id: newest }, { id: all[0]!.id }], total: 5 });
    // A page read is audited like the whole list, with the page it took.
    await eventually(async () => {
      const rows = await ctx.services.database.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.action, 'study.list'), eq(auditEvents.actorId, pat.id)));
      return rows.some((r) => isDeepStrictEqual(r.details, { count: 4, page: { offset: 2, limit: 2 } }));
    }, 5_000);
    // Someone else's list stays a 404, paged or not.
    const stranger = await ctx.app.inject({
      method: 'GET',
      url: `/api/studies/user/${pat.id}?offset=0&limit=2`,
      headers: eve.auth,
    });
    expect(stranger.statusCode).toBe(404);
  });

  it('changes as soon as a study is added, changed by any writer, or deleted', async () => {
    const before = await list(ada);
    const etag0 = String(before.headers.etag);
    const id2 = await upload(ada, 'Second');
    const afterIngest = await list(ada, { 'if-none-match': etag0 });
    expect(afterIngest.statusCode).toBe(200);
    expect((afterIngest.json().data as Array<{ id: string }>).map((s) => s.id)).toContain(id2);

    // A write that does not go through this module (the viewer's transfer status, another process).
    await ctx.services.database.db
      .update(studies)
      .set({ transferStatus: 'completed' })
      .where(eq(studies.id, id2));
    // Such a writer is heard through the database's notification (PGlite: before the update
    // returns; PostgreSQL: within moments, and certainly once the listener has answered a query).
    await ctx.services.changes.settled();
    const afterUpdate = await list(ada, { 'if-none-match': String(afterIngest.headers.etag) });
    expect(afterUpdate.statusCode).toBe(200);
    const s2 = (
      afterUpdate.json().data as Array<{ id: string; status: { transfer: { value: string } } }>
    ).find((s) => s.id === id2)!;
    expect(s2.status.transfer.value).toBe('completed');

    await ctx.app.inject({ method: 'DELETE', url: `/api/studies/${ada.id}/${id2}`, headers: ada.auth });
    const afterDelete = await list(ada, { 'if-none-match': String(afterUpdate.headers.etag) });
    expect(afterDelete.statusCode).toBe(200);
    expect((afterDelete.json().data as Array<{ id: string }>).map((s) => s.id)).not.toContain(id2);
    // Another owner's change does not move this owner's list.
    await upload(eve, 'Eve');
    expect((await list(ada, { 'if-none-match': String(afterDelete.headers.etag) })).statusCode).toBe(304);
  });

  it('audits every list read, 304s included, within moments', async () => {
    const carol = await newPatient(ctx, 'carol-list@example.com');
    const events = () =>
      ctx.services.database.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.action, 'study.list'), eq(auditEvents.actorId, carol.id)));
    const res = await list(carol);
    expect((await list(carol, { 'if-none-match': String(res.headers.etag) })).statusCode).toBe(304);
    const rows = await eventually(async () => {
      const r = await events();
      return r.length === 2 ? r : undefined;
    }, 5_000);
    expect(rows.map((r) => r.details)).toEqual(
      expect.arrayContaining([{ count: 0 }, { count: 0, notModified: true }]),
    );
    expect(rows.every((r) => r.outcome === 'success' && r.targetId === carol.id)).toBe(true);
    // Every column survives the batched write; the time is the request's.
    const started = res.headers.date ? Date.parse(String(res.headers.date)) - 1_000 : Date.now() - 60_000;
    for (const r of rows) {
      expect(r).toMatchObject({ actorRole: 'patient', targetType: 'user', ip: '127.0.0.1' });
      expect(r.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.at.getTime()).toBeGreaterThanOrEqual(started);
      expect(r.at.getTime()).toBeLessThanOrEqual(Date.now());
    }
    expect(new Set(rows.map((r) => r.requestId)).size).toBe(2);
  });

  it('the audit buffer writes everything it holds when it closes', async () => {
    const buffer = createAuditBuffer(
      createAuditRepository(ctx.services.database.db),
      ctx.services.log,
      60 * 60 * 1000,
    );
    for (let i = 0; i < 1200; i++)
      buffer.record({ action: 'test.buffered', outcome: 'success', targetId: String(i) });
    const none = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'test.buffered'));
    expect(none).toHaveLength(0);
    await buffer.close();
    const rows = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'test.buffered'));
    expect(rows.map((r) => Number(r.targetId)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 1200 }, (_, i) => i),
    );
  });
});

describe('notifications list', () => {
  it('lists unread notifications first, so none is pushed out by newer read ones', async () => {
    const { db } = ctx.services.database;
    const owner = await newPatient(ctx, 'notes-list@example.com');
    const start = Date.UTC(2025, 0, 1);
    // One old unread notification, then 120 newer ones that are already read.
    await db.insert(notifications).values([
      {
        userId: owner.id,
        type: 'system',
        title: 'old unread',
        description: 'x',
        createdAt: new Date(start),
      },
      ...Array.from({ length: 120 }, (_, i) => ({
        userId: owner.id,
        type: 'system' as const,
        title: `read ${i}`,
        description: 'x',
        read: true,
        createdAt: new Date(start + (i + 1) * 1000),
      })),
    ]);
    const res = await ctx.app.inject({ method: 'GET', url: '/api/notifications/', headers: owner.auth });
    const body = res.json() as { data: { title: string; read: boolean }[]; unreadCount: number };
    expect(body.unreadCount).toBe(1);
    expect(body.data).toHaveLength(100);
    expect(body.data[0]).toMatchObject({ title: 'old unread', read: false });
    // The read ones follow, newest first.
    expect(body.data.slice(1, 3).map((n) => n.title)).toEqual(['read 119', 'read 118']);
  });
});
