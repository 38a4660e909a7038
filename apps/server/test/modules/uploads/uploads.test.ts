import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { INVITATION_INVALID_MESSAGE } from '@mi/contracts/sharing';
import { studyUploads, users } from '../../../src/db/schema/index';
import { createStudiesRepository, PROCESS_STUDY } from '../../../src/modules/studies';
import { listen, newPatient, storageToken, tusUpload, type Patient } from '../../helpers/studies';
import {
  cookieHeader,
  createTestContext,
  eventually,
  registerPatient,
  type TestContext,
} from '../../helpers/test-app';

let ctx: TestContext;
let base: string;
let ada: Patient;
let eve: Patient;

beforeAll(async () => {
  ctx = await createTestContext();
  base = await listen(ctx);
  ada = await newPatient(ctx, 'ada-uploads@example.com');
  eve = await newPatient(ctx, 'eve-uploads@example.com');
});
afterAll(async () => {
  await ctx?.close();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const create = (token: string, objectName: string, length: number, extra: Record<string, string> = {}) =>
  fetch(`${base}/api/uploads`, {
    method: 'POST',
    headers: {
      'tus-resumable': '1.0.0',
      'upload-length': String(length),
      'upload-metadata': `objectName ${b64(objectName)},filetype ${b64('application/zip')}`,
      authorization: `Bearer ${token}`,
      ...extra,
    },
  });

describe('storage token', () => {
  it('issues a one-hour credential that is not a session token', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/storage/token', headers: ada.auth });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ bucket: 'uploads', uploadUrl: '/api/uploads' });
    expect(body.accessToken).not.toBe(ada.token);
    const ttl = new Date(body.expiresAt).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(59 * 60_000);
    expect(ttl).toBeLessThanOrEqual(60 * 60_000);
    // The credential does not sign anyone in.
    const me = await ctx.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${body.accessToken}` },
    });
    expect(me.statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/storage/token' })).statusCode).toBe(401);
  });
});

describe('tus uploads', () => {
  it('uploads in chunks and resumes after the client goes away, with a new credential', async () => {
    const data = randomBytes(700 * 1024);
    const objectName = `${ada.id}/${randomUUID()}/study.zip`;
    let firstUrl = '';
    // First attempt: stop after the first chunk, as a reloaded page would.
    await new Promise<void>((resolve, reject) => {
      void storageToken(ctx, ada).then((token) =>
        tusUpload(base, token, objectName, data, {
          chunkSize: 256 * 1024,
          onChunk: (upload, sent) => {
            if (sent >= 256 * 1024) {
              firstUrl = upload.url!;
              void upload.abort().then(resolve, reject);
            }
          },
        }).catch(reject),
      );
    });
    expect(firstUrl).toContain(`/api/uploads/${objectName}`);
    const head = await fetch(firstUrl, {
      method: 'HEAD',
      headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${await storageToken(ctx, ada)}` },
    });
    expect(head.status).toBe(200);
    const offset = Number(head.headers.get('upload-offset'));
    expect(offset).toBe(256 * 1024);

    // Second attempt resumes at that offset.
    const url = await tusUpload(base, await storageToken(ctx, ada), objectName, data, {
      chunkSize: 256 * 1024,
      uploadUrl: firstUrl,
    });
    expect(url).toBe(firstUrl);
    const stored = await readFile(path.join(ctx.dataDir, 'uploads', objectName));
    expect(stored.equals(data)).toBe(true);
  });

  it('keeps the bytes of a request cut off mid-way and resumes after them', async () => {
    const data = randomBytes(3 * 1024 * 1024);
    const objectName = `${ada.id}/${randomUUID()}/study.zip`;
    const token = await storageToken(ctx, ada);
    expect((await create(token, objectName, data.length)).status).toBe(201);
    // One PATCH for the whole archive whose connection drops after 2 MiB, as when a laptop's Wi-Fi
    // goes: tus keeps what arrived.
    const sent = 2 * 1024 * 1024;
    await new Promise<void>((resolve) => {
      const req = http.request(`${base}/api/uploads/${objectName}`, {
        method: 'PATCH',
        headers: {
          'tus-resumable': '1.0.0',
          'upload-offset': '0',
          'content-type': 'application/offset+octet-stream',
          'content-length': String(data.length),
          authorization: `Bearer ${token}`,
        },
      });
      req.on('error', () => resolve());
      req.on('response', (res) => res.resume().on('end', resolve));
      req.write(data.subarray(0, sent), () => setTimeout(() => req.destroy(), 200));
    });
    const headers = { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}` };
    const offset = await eventually(async () => {
      const head = await fetch(`${base}/api/uploads/${objectName}`, { method: 'HEAD', headers });
      const at = Number(head.headers.get('upload-offset'));
      return at === sent ? at : undefined;
    }, 5000);
    expect(offset).toBe(sent);
    const stored = await readFile(path.join(ctx.dataDir, 'uploads', objectName));
    expect(stored.equals(data.subarray(0, sent))).toBe(true);

    await tusUpload(base, token, objectName, data, { uploadUrl: `${base}/api/uploads/${objectName}` });
    expect((await readFile(path.join(ctx.dataDir, 'uploads', objectName))).equals(data)).toBe(true);
  });

  it("refuses another user's folder, another user's credential and a bad credential", async () => {
    const adaToken = await storageToken(ctx, ada);
    const foreign = await create(adaToken, `${eve.id}/${randomUUID()}/study.zip`, 10);
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: string }).error).toBe(
      'You can only upload into your own storage folder.',
    );

    // Eve's browser (her session cookie) presenting Ada's credential.
    const eveLogin = await registerPatient(ctx, 'eve-cookie@example.com');
    const reused = await create(adaToken, `${ada.id}/${randomUUID()}/study.zip`, 10, {
      cookie: cookieHeader(eveLogin),
    });
    expect(reused.status).toBe(403);
    expect(((await reused.json()) as { error: string }).error).toBe(
      'This upload credential belongs to another user.',
    );

    for (const token of [ada.token, 'mi-upload.e30.forged', '']) {
      const res = await create(token, `${ada.id}/${randomUUID()}/study.zip`, 10);
      expect(res.status).toBe(401);
    }
    const badName = await create(adaToken, `${ada.id}/../study.zip`, 10);
    expect(badName.status).toBe(400);

    // Someone else's upload looks missing.
    const mine = `${ada.id}/${randomUUID()}/study.zip`;
    expect((await create(adaToken, mine, 10)).status).toBe(201);
    const peek = await fetch(`${base}/api/uploads/${mine}`, {
      method: 'HEAD',
      headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${await storageToken(ctx, eve)}` },
    });
    expect(peek.status).toBe(404);
    const del = await fetch(`${base}/api/uploads/${mine}`, {
      method: 'DELETE',
      headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${await storageToken(ctx, eve)}` },
    });
    expect(del.status).toBe(404);
    // Its owner may terminate it.
    const own = await fetch(`${base}/api/uploads/${mine}`, {
      method: 'DELETE',
      headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${adaToken}` },
    });
    expect(own.status).toBe(204);
    expect(await ctx.services.uploadArea.info(mine)).toBeNull();
  });

  it('refuses an Upload-Length above the remaining quota with the spec message', async () => {
    await ctx.services.database.db
      .update(users)
      .set({ maxStorageBytes: 1000, usedStorageBytes: 400 })
      .where(eq(users.id, eve.id));
    const token = await storageToken(ctx, eve);
    const res = await create(token, `${eve.id}/${randomUUID()}/study.zip`, 601);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe(
      'Storage Limit Exceeded: Uploading these files would exceed your storage limit of 0 GB.',
    );
    expect((await create(token, `${eve.id}/${randomUUID()}/study.zip`, 600)).status).toBe(201);
    await ctx.services.database.db
      .update(users)
      .set({ maxStorageBytes: null, usedStorageBytes: 0 })
      .where(eq(users.id, eve.id));
  });
});

describe('process requests', () => {
  it("404s for another user's prefix or an unfinished upload, 400s for a shared upload without a live invitation, and is idempotent", async () => {
    const adaToken = await storageToken(ctx, ada);
    const objectName = `${ada.id}/${randomUUID()}/study.zip`;
    expect((await create(adaToken, objectName, 100)).status).toBe(201);
    const post = (p: Patient, prefix: string, uploadType = 'regular') =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/studies/process',
        headers: p.auth,
        payload: { prefix, jobContext: { uploadType } },
      });

    const unfinished = await post(ada, objectName);
    expect(unfinished.statusCode).toBe(404);
    const stranger = await post(eve, objectName);
    expect(stranger.statusCode).toBe(404);
    const shared = await post(ada, objectName, 'shared');
    expect(shared.statusCode).toBe(400);
    expect(shared.json().error).toBe(INVITATION_INVALID_MESSAGE);
    const invalid = await ctx.app.inject({
      method: 'POST',
      url: '/api/studies/process',
      headers: ada.auth,
      payload: { prefix: '' },
    });
    expect(invalid.statusCode).toBe(400);

    const done = `${ada.id}/${randomUUID()}/study.zip`;
    await tusUpload(base, adaToken, done, Buffer.from('not a zip at all'));
    const first = await post(ada, done.replace(/\/study\.zip$/, ''));
    expect(first.statusCode).toBe(202);
    const second = await post(ada, done);
    expect(second.statusCode).toBe(202);
    expect(second.json().jobId).toBe(first.json().jobId);
    expect((await post(eve, done)).statusCode).toBe(404);
  });

  it('writes the upload record and its processing job in one transaction', async () => {
    const adaToken = await storageToken(ctx, ada);
    const done = `${ada.id}/${randomUUID()}/study.zip`;
    await tusUpload(base, adaToken, done, Buffer.from('not a zip at all'));
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/studies/process',
      headers: ada.auth,
      payload: { prefix: done, jobContext: { uploadType: 'regular' } },
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().message).toBe(
      'Your study is being processed. You will be notified once the processing is complete.',
    );
    const db = ctx.services.database.db;
    const [row] = await db.select().from(studyUploads).where(eq(studyUploads.objectName, done));
    expect(row!.jobId).toBe(row!.id);
    expect(res.json().jobId).toBe(row!.id);
    expect(await ctx.services.queue.stateOf(row!.id)).not.toBeNull();

    // A job written and then a failure before the commit: neither the record nor the job remains.
    const repo = createStudiesRepository(db);
    const lost = `${ada.id}/${randomUUID()}/study.zip`;
    let jobId: string | null = null;
    await expect(
      repo.ensureUpload(
        { ownerId: ada.id, objectName: lost, uploadType: 'regular', sizeBytes: 16 },
        async (upload, within) => {
          jobId = await ctx.services.queue.send(
            PROCESS_STUDY,
            { uploadId: upload.id, userId: ada.id, objectName: lost },
            { id: upload.id, within },
          );
          throw new Error('failed after queueing');
        },
      ),
    ).rejects.toThrow('failed after queueing');
    expect(jobId).not.toBeNull();
    expect(await repo.findUploadByObjectName(lost)).toBeUndefined();
    expect(await ctx.services.queue.stateOf(jobId!)).toBeNull();
  });
});
