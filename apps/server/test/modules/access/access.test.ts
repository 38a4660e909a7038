import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents, studies } from '../../../src/db/schema/index';
import type { Principal } from '../../../src/modules/access/principal';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, newPatient, uid, type Patient } from '../../helpers/studies';
import { createTestContext, type TestContext } from '../../helpers/test-app';

let ctx: TestContext;
let ada: Patient;
let bob: Patient;
let studyId: string;
let studyUid: string;
const meta = { requestId: 'access-test', ip: '127.0.0.1' };

beforeAll(async () => {
  ctx = await createTestContext();
  ada = await newPatient(ctx, 'ada-access@example.com');
  bob = await newPatient(ctx, 'bob-access@example.com');
  studyUid = uid();
  [studyId] = (await ingestFiles(ctx, ada.id, [
    makeDicom({ studyUid, seriesUid: uid(), sopUid: uid() }),
  ])) as [string];
});
afterAll(async () => {
  await ctx?.close();
});

const session = (p: Patient): Principal => ({ userId: p.id, role: 'patient', via: 'session', studyId: null });
const grant = (p: Patient, forStudy: string): Principal => ({
  userId: p.id,
  role: 'patient',
  via: 'grant',
  studyId: forStudy,
});
const outcome = (
  p: Principal,
  action: 'read' | 'download' | 'delete',
  target: { id: string } | { uid: string },
) =>
  ctx.services.access.requireStudyAccess(p, action, target, meta).then(
    (s) => s.id,
    (err: { code?: string }) => err.code,
  );

describe('the one access rule', () => {
  it('the owner may read, download and delete, by id or by Study Instance UID', async () => {
    for (const action of ['read', 'download', 'delete'] as const)
      expect(await outcome(session(ada), action, { id: studyId })).toBe(studyId);
    expect(await outcome(session(ada), 'read', { uid: studyUid })).toBe(studyId);
  });

  it('a viewer grant reads its one study and nothing more: no download, no delete, no other study', async () => {
    const [other] = (await ingestFiles(ctx, ada.id, [
      makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
    ])) as [string];
    expect(await outcome(grant(ada, studyId), 'read', { id: studyId })).toBe(studyId);
    expect(await outcome(grant(ada, studyId), 'read', { uid: studyUid })).toBe(studyId);
    expect(await outcome(grant(ada, studyId), 'download', { id: studyId })).toBe('NOT_FOUND');
    expect(await outcome(grant(ada, studyId), 'delete', { id: studyId })).toBe('NOT_FOUND');
    expect(await outcome(grant(ada, studyId), 'read', { id: other })).toBe('NOT_FOUND');
    // A grant someone else holds for this study gives them nothing of it.
    expect(await outcome(grant(bob, studyId), 'read', { id: studyId })).toBe('NOT_FOUND');
  });

  it('a stranger, a missing id and a malformed id get the same 404, and the refusal is audited', async () => {
    for (const target of [
      { id: studyId },
      { id: '3f1c6a52-8d0e-4c1b-9a55-0e2f5b7c9d11' },
      { id: 'not-an-id' },
      { uid: studyUid },
      { uid: '../../x/pwn' },
    ])
      expect(await outcome(session(bob), 'read', target)).toBe('NOT_FOUND');
    const denied = await ctx.services.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, bob.id), eq(auditEvents.outcome, 'denied')));
    expect(denied.length).toBeGreaterThanOrEqual(5);
    expect(denied.some((d) => d.targetId === studyId && d.action === 'study.read')).toBe(true);
  });

  it('a study being deleted is gone for reading, yet its owner can finish deleting it', async () => {
    const [doomed] = (await ingestFiles(ctx, ada.id, [
      makeDicom({ studyUid: uid(), seriesUid: uid(), sopUid: uid() }),
    ])) as [string];
    await ctx.services.database.db
      .update(studies)
      .set({ deletingSince: new Date() })
      .where(eq(studies.id, doomed));
    expect(await outcome(session(ada), 'read', { id: doomed })).toBe('NOT_FOUND');
    expect(await outcome(session(ada), 'delete', { id: doomed })).toBe(doomed);
    expect((await ctx.services.access.visibleStudies(session(ada))).map((s) => s.id)).not.toContain(doomed);
  });
});
