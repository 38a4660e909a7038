// Many nodes on one PostgreSQL database and one S3 bucket, as an operator would run them: two API
// processes (`serve --no-jobs`) and two job workers (`worker`), started from source, behind a
// round-robin proxy that sends each request to the other API node than the one before. Nothing may
// depend on which node a request reaches, and a node killed with SIGKILL loses nothing it
// acknowledged (issue 27; docs/decisions.md lists what each process keeps in memory and how it is
// kept right across nodes).
//
// There is no live channel to proxy: the web app polls (apps/web/src/lib/query-client.ts).
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compactDecrypt } from 'jose';
import pg from 'pg';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { generateSeries } from '../helpers/dicom-series';
import { startRoundRobinProxy, type RoundRobinProxy } from '../helpers/round-robin-proxy';
import { motoInstalled, startMotoS3, type LocalS3 } from '../helpers/s3rver';
import {
  captcha,
  freePort,
  killServers,
  startServer,
  waitHealthy,
  type ServerProcess,
  until as untilEvery,
} from '../helpers/server-process';
import { buildZip } from '../helpers/studies';
import { startFakeStripe, type FakeStripe } from '../modules/orders/fake-stripe';
import { createPostgresDatabase, dropPostgresDatabase } from '../helpers/test-database';
import { tusUpload } from '../helpers/tus-upload';

const adminUrl = process.env.DATABASE_URL;
const moto = motoInstalled();
if (adminUrl && !moto)
  console.warn('multi-node.test.ts skipped: moto_server is not installed (pip install "moto[server]")');

const password = 'Str0ng!Passw0rd';
// The cross-node checks answer within 1 s, so poll finely.
const until = <T>(fn: () => Promise<T | undefined>, timeoutMs: number, what: string, everyMs = 50) =>
  untilEvery(fn, timeoutMs, what, everyMs);

interface Node {
  name: string;
  server: ServerProcess;
  url: string;
  /** The directory the node's temporary files go to (TMPDIR). */
  tmp: string;
}

describe.skipIf(!adminUrl || !moto)('two API nodes and two workers on PostgreSQL and S3', () => {
  let database: { name: string; url: string };
  let s3: LocalS3;
  let bucket: S3Client;
  let proxy: RoundRobinProxy;
  let stripeApi: FakeStripe;
  const webhookSecret = `whsec_${randomBytes(12).toString('hex')}`;
  const api: Node[] = [];
  const workers: Node[] = [];
  const dirs: string[] = [];
  const sessionSecret = randomBytes(32).toString('hex');

  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  const env = () => ({
    DATABASE_URL: database.url,
    ...s3.env,
    SESSION_SECRET: sessionSecret,
    DATA_DIR: tempDir('mi-node-'),
    PUBLIC_URL: proxy.url,
    TRUST_PROXY: 'true',
    LOG_LEVEL: 'warn',
    // Card payments through a local server that speaks Stripe's API (test/modules/orders/fake-stripe.ts).
    STRIPE_SECRET_KEY: 'sk_test_fake',
    STRIPE_PUBLISHABLE_KEY: 'pk_test_fake',
    STRIPE_WEBHOOK_SECRET: webhookSecret,
    STRIPE_API_URL: stripeApi.url,
  });

  async function startApi(name: string): Promise<Node> {
    const port = await freePort();
    const tmp = tempDir('mi-node-tmp-');
    const server = startServer(
      { ...env(), PORT: String(port), VIEWER_PORT: String(await freePort()), TMPDIR: tmp },
      { args: ['--no-jobs'] },
    );
    const node = { name, server, url: `http://127.0.0.1:${port}`, tmp };
    await waitHealthy(node.url, server);
    return node;
  }

  function startWorker(name: string): Node {
    const tmp = tempDir('mi-node-tmp-');
    return { name, server: startServer({ ...env(), TMPDIR: tmp }, { command: 'worker' }), url: '', tmp };
  }

  const showOutput = () => {
    for (const n of [...api, ...workers])
      console.log(`${n.name} output (last 3000 characters):\n${n.server.output().slice(-3000)}`);
  };

  beforeAll(async () => {
    const template = inject('databaseTemplate');
    database = await createPostgresDatabase(adminUrl!, {
      template: template?.kind === 'postgres' ? template.name : undefined,
    });
    s3 = await startMotoS3();
    stripeApi = await startFakeStripe();
    bucket = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    proxy = await startRoundRobinProxy([]);
    workers.push(startWorker('worker 1'), startWorker('worker 2'));
    api.push(...(await Promise.all([startApi('api 1'), startApi('api 2')])));
    proxy.targets = api.map((n) => n.url);
  }, 150_000);

  afterAll(async () => {
    killServers();
    await Promise.all([...api, ...workers].map((n) => n.server.exited));
    await proxy?.close();
    await stripeApi?.close();
    bucket?.destroy();
    await s3?.stop();
    if (database) await dropPostgresDatabase(adminUrl!, database.name);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** A request through the proxy (or to `base`), from client address `ip`. */
  const call = (
    pathname: string,
    init: { method?: string; token?: string; body?: unknown; ip?: string; base?: string } = {},
  ) =>
    fetch(`${init.base ?? proxy.url}${pathname}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        'x-forwarded-for': init.ip ?? '192.0.2.1',
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  const register = (email: string, solved: string, ip?: string) =>
    call('/api/auth/register', {
      body: { email, password, name: 'Multi Node', acceptTerms: true, captcha: solved },
      ip,
    });

  /** A sign-in through the proxy, or to the node at `base`; its challenge is asked through the proxy. */
  const login = async (email: string, pass: string, ip: string, base?: string) =>
    call('/api/auth/login', {
      body: { email, password: pass, captcha: await captcha(proxy.url, email) },
      ip,
      base,
    });

  let user: { id: string; token: string; email: string };

  it('registers and signs in through the proxy, the requests spread over both nodes', async () => {
    onTestFailed(showOutput);
    const email = `multi-${randomUUID()}@example.com`;
    const registered = await register(email, await captcha(proxy.url));
    expect(registered.status).toBe(201);
    const signedIn = await login(email, password, '192.0.2.10');
    expect(signedIn.status).toBe(200);
    const { data } = (await signedIn.json()) as { data: { id: string; authToken: string } };
    user = { id: data.id, token: data.authToken, email };
    for (const node of api) {
      const me = await call('/api/auth/me', { token: user.token, base: node.url });
      expect(me.status, node.name).toBe(200);
    }
    const reached = new Set(proxy.log.map((l) => l.split(' -> ')[1]));
    expect(reached.size).toBe(2);
  });

  // One archive for the upload and processing tests, of one study in two series: stored entries make
  // it large enough for many chunks, deflated ones make processing last long enough to catch a worker
  // at it. 1 MiB chunks stay under S3's 5 MiB part minimum, so acknowledged bytes wait in the
  // upload's pending part until five have come.
  const large = generateSeries({ count: 60, size: 256, description: 'multi-node' });
  const many = generateSeries({ count: 300, size: 256, studyInstanceUid: large.studyInstanceUid });
  const files = [...large.files, ...many.files];
  const zip = buildZip(
    files.map((f, i) => ({
      name: `DICOM/I${String(i).padStart(4, '0')}.dcm`,
      data: f.bytes,
      method: i < large.files.length ? ('store' as const) : ('deflate' as const),
    })),
  );
  const chunkSize = 1024 * 1024;
  let objectName = '';

  it('keeps every acknowledged byte of a tus upload whose chunks alternate nodes when one node is killed mid-chunk, and the other finishes it', async () => {
    onTestFailed(showOutput);
    expect(zip.length).toBeGreaterThan(6 * chunkSize);
    objectName = `${user.id}/${randomUUID()}/study.zip`;
    const token = (
      (await (await call('/api/storage/token', { token: user.token })).json()) as { accessToken: string }
    ).accessToken;
    const logStart = proxy.log.length;

    // Three chunks acknowledged, then the fourth is cut off halfway on the node it reached.
    let acknowledged = 0;
    let stalled: ReturnType<RoundRobinProxy['stallNext']> | undefined;
    let uploadUrl = '';
    const first = tusUpload(proxy.url, token, objectName, zip, {
      chunkSize,
      onChunk: (upload, offset) => {
        acknowledged = offset;
        uploadUrl = upload.url!;
        if (offset === 3 * chunkSize) stalled = proxy.stallNext('PATCH', chunkSize / 2);
      },
    });
    const failed = first.then(
      () => {
        throw new Error('the upload finished though its node was killed');
      },
      (err: unknown) => err,
    );
    await until(async () => stalled, 60_000, 'three chunks acknowledged');
    await stalled!.forwarded;
    const victim = api.find((n) => n.url === stalled!.target)!;
    const survivor = api.find((n) => n !== victim)!;
    // The node is at work on the chunk once its first bytes reach a temporary file: the tus S3
    // store writes each part it is given to `{random}-{n}` in TMPDIR before sending it to the
    // bucket (StreamSplitter in @tus/utils).
    await until(
      async () =>
        readdirSync(victim.tmp).some((f) => {
          const file = path.join(victim.tmp, f);
          return /^[\w-]{10}-\d+$/.test(f) && statSync(file).isFile() && statSync(file).size > 0;
        })
          ? true
          : undefined,
      30_000,
      'the stalled chunk to reach the node',
      5,
    );
    victim.server.signal('SIGKILL');
    await victim.server.exited;
    proxy.targets = [survivor.url];
    await failed;
    expect(acknowledged).toBe(3 * chunkSize);
    const patches = proxy.log.slice(logStart).filter((l) => l.startsWith('PATCH'));
    expect(new Set(patches.map((l) => l.split(' -> ')[1])).size, 'chunks went to both nodes').toBe(2);

    // The other node knows every byte that was acknowledged, and the upload resumes from there.
    const head = await fetch(new URL(uploadUrl, proxy.url), {
      method: 'HEAD',
      headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}` },
    });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('upload-offset'))).toBe(acknowledged);
    await tusUpload(proxy.url, token, objectName, zip, { chunkSize, uploadUrl: uploadUrl });
    const stored = await bucket.send(new GetObjectCommand({ Bucket: s3.bucket, Key: objectName }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(zip), 'the stored archive').toBe(
      true,
    );

    // The killed node comes back as a new process, and the proxy sends to it again.
    const restarted = await startApi(victim.name);
    api.splice(api.indexOf(victim), 1, restarted);
    proxy.targets = api.map((n) => n.url);
  }, 120_000);
  const get = async <T>(pathname: string, base?: string): Promise<T> => {
    const res = await call(pathname, { token: user.token, base });
    if (!res.ok) throw new Error(`GET ${pathname}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const pendingJobs = async () =>
    (await get<{ jobs: Array<{ id: string; state: string }> }>(`/api/jobs/pending/${user.id}`)).jobs;
  const listed = async (base?: string) =>
    (await get<{ data: Array<{ id: string; studyId: string | null }> }>(`/api/studies/user/${user.id}`, base))
      .data;
  let studyId = '';

  it('processes the upload on a worker, and when that worker is killed mid-job the other finishes it exactly once', async () => {
    onTestFailed(showOutput);
    expect(objectName, 'the upload test ran').not.toBe('');
    const [first, second] = workers as [Node, Node];
    // The second worker is paused, so the job goes to the first; it is let go once the first is killed.
    second.server.signal('SIGSTOP');
    let jobId = '';
    try {
      const queued = await call('/api/studies/process', {
        token: user.token,
        body: { prefix: objectName, jobContext: { uploadType: 'regular' } },
      });
      expect(queued.status).toBe(202);
      jobId = ((await queued.json()) as { jobId: string }).jobId;
      await until(
        async () =>
          (await pendingJobs()).find((j) => j.id === jobId)?.state === 'active' ? true : undefined,
        60_000,
        'the job to start on the first worker',
        20,
      );
      first.server.signal('SIGKILL');
      await first.server.exited;
    } finally {
      second.server.signal('SIGCONT');
    }
    // The killed worker's lease goes stale (20 s, jobs/queue.ts) and the other worker takes the job.
    const study = await until(
      async () => {
        const mine = (await listed()).filter((x) => x.studyId === large.studyInstanceUid);
        if (mine.length === 0) return undefined;
        expect(mine, 'the study is listed once').toHaveLength(1);
        const detail = await get<{ data: { instanceCount: number } }>(`/api/studies/study/${mine[0]!.id}`);
        return detail.data.instanceCount === files.length ? mine[0] : undefined;
      },
      120_000,
      `the study with ${files.length} instances`,
      200,
    );
    studyId = study.id;
    expect(second.server.output()).toMatch(
      new RegExp(`"jobId":"${jobId}"[^\\n]*interrupted job handed to a live worker`),
    );
    await until(
      async () => ((await pendingJobs()).some((j) => j.id === jobId) ? undefined : true),
      30_000,
      'the job to settle',
    );
    // Asked again, on either node, it answers with the same job and queues nothing.
    for (const node of api) {
      const again = await call('/api/studies/process', {
        token: user.token,
        base: node.url,
        body: { prefix: objectName, jobContext: { uploadType: 'regular' } },
      });
      expect(again.status, node.name).toBe(202);
      expect(((await again.json()) as { jobId: string }).jobId).toBe(jobId);
    }
    expect(await pendingJobs()).toEqual([]);
    expect((await listed()).filter((x) => x.studyId === large.studyInstanceUid).map((x) => x.id)).toEqual([
      study.id,
    ]);
    // The killed worker comes back, for the tests after this one.
    workers.splice(workers.indexOf(first), 1, startWorker(first.name));
  }, 180_000);

  it('lists the study and serves its DICOMweb metadata and a frame on both nodes', async () => {
    onTestFailed(showOutput);
    expect(studyId, 'the processing test ran').not.toBe('');
    const instance = many.files[7]!;
    for (const node of api) {
      expect(
        (await listed(node.url)).map((x) => x.id),
        node.name,
      ).toContain(studyId);
      const metadata = await call(`/dicomweb/studies/${large.studyInstanceUid}/metadata`, {
        token: user.token,
        base: node.url,
      });
      expect(metadata.status, node.name).toBe(200);
      expect(((await metadata.json()) as unknown[]).length, node.name).toBe(files.length);
      const frame = await fetch(
        `${node.url}/dicomweb/studies/${large.studyInstanceUid}/series/${many.seriesInstanceUid}/instances/${instance.sopInstanceUid}/frames/1`,
        {
          headers: {
            authorization: `Bearer ${user.token}`,
            accept: 'multipart/related; type="application/octet-stream"; transfer-syntax=*',
          },
        },
      );
      expect(frame.status, node.name).toBe(200);
      expect((await frame.arrayBuffer()).byteLength, node.name).toBeGreaterThan(256 * 256 * 2);
    }
  }, 60_000);

  it('refuses a session on the other node within 1 s of its logout on one', async () => {
    onTestFailed(showOutput);
    const email = `logout-${randomUUID()}@example.com`;
    expect((await register(email, await captcha(proxy.url), '192.0.2.20')).status).toBe(201);
    const signedIn = await login(email, password, '192.0.2.20');
    const token = ((await signedIn.json()) as { data: { authToken: string } }).data.authToken;
    const [one, other] = api as [Node, Node];
    // Both nodes have seen the session (and may keep it in their session cache).
    for (const node of api) expect((await call('/api/auth/me', { token, base: node.url })).status).toBe(200);
    expect((await call('/api/auth/logout', { token, base: one.url, method: 'POST' })).status).toBe(200);
    const loggedOutAt = Date.now();
    await until(
      async () =>
        (await call('/api/auth/me', { token, base: other.url })).status === 401 ? true : undefined,
      1_000,
      'the other node to refuse the session',
      20,
    );
    expect(Date.now() - loggedOutAt).toBeLessThan(1_000);
  });

  it('refuses every session of an account on the other node within 1 s of a password reset on one', async () => {
    onTestFailed(showOutput);
    const email = `reset-${randomUUID()}@example.com`;
    expect((await register(email, await captcha(proxy.url), '192.0.2.21')).status).toBe(201);
    const signedIn = await login(email, password, '192.0.2.21');
    const token = ((await signedIn.json()) as { data: { authToken: string } }).data.authToken;
    const [one, other] = api as [Node, Node];
    for (const node of api) expect((await call('/api/auth/me', { token, base: node.url })).status).toBe(200);
    expect(
      (await call('/api/auth/forgot-password', { body: { email }, base: one.url, ip: '192.0.2.21' })).status,
    ).toBe(200);
    // The reset email is sent by a worker; its link carries the challenge.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    let challenge = '';
    try {
      challenge = await until(
        async () => {
          const { rows } = await db.query<{ text: string }>(
            'select text from mail_outbox where "to" = $1 and subject like \'Reset your%\'',
            [email],
          );
          const link = rows[0] && /(http\S+reset-password\S+)/.exec(rows[0].text)?.[1];
          return link ? new URL(link).searchParams.get('challenge')! : undefined;
        },
        30_000,
        'the reset email',
        100,
      );
    } finally {
      await db.end();
    }
    const reset = await call('/api/auth/reset-password', {
      body: { email, challenge, newPassword: 'N3w!Passw0rd' },
      base: one.url,
      ip: '192.0.2.21',
    });
    expect(reset.status).toBe(200);
    const resetAt = Date.now();
    await until(
      async () =>
        (await call('/api/auth/me', { token, base: other.url })).status === 401 ? true : undefined,
      1_000,
      'the other node to refuse the session after the reset',
      20,
    );
    expect(Date.now() - resetAt).toBeLessThan(1_000);
  });

  it('shows a share made on one node in the recipient’s list and notifications on the other within 1 s, and refuses the study there within 1 s of its revocation', async () => {
    onTestFailed(showOutput);
    expect(studyId, 'the processing test ran').not.toBe('');
    const email = `reader-${randomUUID()}@example.com`;
    const registered = await register(email, await captcha(proxy.url), '192.0.2.60');
    expect(registered.status).toBe(201);
    const reader = ((await registered.json()) as { data: { id: string; authToken: string } }).data;
    // Both addresses confirmed (as by their emailed links), and the owner's sharing switched on.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      await db.query('update users set email_verified_at = now() where id = any($1::uuid[])', [
        [user.id, reader.id],
      ]);
    } finally {
      await db.end();
    }
    const allowed = await call(`/api/users/${user.id}`, {
      token: user.token,
      method: 'PUT',
      body: { shareMedicalData: true },
    });
    expect(allowed.status).toBe(200);
    const [one, other] = api as [Node, Node];
    const readerGet = (pathname: string, base: string) => call(pathname, { token: reader.authToken, base });
    const sharedWithReader = async (base: string) =>
      (
        (await (await readerGet(`/api/users/shares/targetUser/${reader.id}`, base)).json()) as {
          data: Array<{ _id: string }>;
        }
      ).data.map((x) => x._id);
    // The reader's Shared Studies list is read (and cached) on the other node before the share.
    expect(await sharedWithReader(other.url)).toEqual([]);
    const shared = await call('/api/users/shares', {
      token: user.token,
      base: one.url,
      body: { email, studyId },
    });
    expect(shared.status).toBe(201);
    const sharedAt = Date.now();
    const shareId = ((await shared.json()) as { data: { id: string } }).data.id;
    // The other node's list and the reader's notifications show it within 1 s (the web app polls them).
    await until(
      async () => ((await sharedWithReader(other.url)).includes(studyId) ? true : undefined),
      1_000,
      'the share in the Shared Studies list on the other node',
      20,
    );
    expect(Date.now() - sharedAt).toBeLessThan(1_000);
    const notes = (await (await readerGet('/api/notifications/', other.url)).json()) as {
      data: Array<{ title: string }>;
    };
    expect(notes.data.map((n) => n.title)).toContain('A study was shared with you');
    for (const node of api)
      expect((await readerGet(`/api/studies/study/${studyId}`, node.url)).status, node.name).toBe(200);
    const revoked = await call(`/api/users/shares/${shareId}`, {
      token: user.token,
      base: one.url,
      method: 'DELETE',
    });
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    await until(
      async () =>
        (await call(`/api/studies/study/${studyId}`, { token: reader.authToken, base: other.url })).status ===
        404
          ? true
          : undefined,
      1_000,
      'the other node to refuse the study',
      20,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    expect(await sharedWithReader(other.url)).toEqual([]);
    const metadata = await call(`/dicomweb/studies/${large.studyInstanceUid}/metadata`, {
      token: reader.authToken,
      base: other.url,
    });
    expect(metadata.status).not.toBe(200);
  });

  it('counts a study link’s wrong passcodes on both nodes together, and refuses its credential on the other node within 1 s of its revocation on one', async () => {
    onTestFailed(showOutput);
    expect(studyId, 'the processing test ran').not.toBe('');
    const [one, other] = api as [Node, Node];
    const makeLink = async () => {
      const made = await call('/api/studies/links', {
        token: user.token,
        base: one.url,
        body: {
          studyIds: [studyId],
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
          passcode: 'tulip-42',
        },
      });
      expect(made.status).toBe(201);
      const { id, shlink } = (await made.json()) as { id: string; shlink: string };
      const payload = JSON.parse(Buffer.from(shlink.slice('shlink:/'.length), 'base64url').toString()) as {
        url: string;
        key: string;
      };
      // The manifest URL names the proxy (PUBLIC_URL): each request goes to the other node.
      return { id, manifest: new URL(payload.url).pathname, key: payload.key };
    };
    const ask = (manifest: string, passcode: string, ip: string) =>
      call(manifest, { body: { recipient: 'Dr Multi', passcode }, ip });

    // Ten wrong passcodes alternate nodes; the budget is one, so the eleventh finds the link disabled.
    const guessed = await makeLink();
    const left: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await ask(guessed.manifest, `wrong ${i}`, '192.0.2.70');
      expect(res.status).toBe(401);
      left.push(((await res.json()) as { remainingAttempts: number }).remainingAttempts);
    }
    expect(left).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect((await ask(guessed.manifest, 'tulip-42', '192.0.2.70')).status).toBe(404);

    // A recipient's credential works on both nodes until the link is revoked on one.
    const link = await makeLink();
    const opened = await ask(link.manifest, 'tulip-42', '192.0.2.71');
    expect(opened.status).toBe(200);
    const { files } = (await opened.json()) as { files: Array<{ embedded: string }> };
    expect(files[0]!.embedded.split('.')).toHaveLength(5);
    // The credential rides in the encrypted bundle's DICOMweb Endpoint; decrypt it with the link's key.
    const { plaintext } = await compactDecrypt(files[0]!.embedded, Buffer.from(link.key, 'base64url'));
    const bundle = JSON.parse(Buffer.from(plaintext).toString()) as {
      entry: Array<{ resource: { resourceType: string; header?: string[] } }>;
    };
    const header = bundle.entry.find((e) => e.resource.resourceType === 'Endpoint' && e.resource.header)!
      .resource.header![0]!;
    const credential = header.replace(/^Authorization:\s*Bearer\s+/i, '');
    const metadata = (base: string) =>
      call(`/dicomweb/studies/${large.studyInstanceUid}/metadata`, { token: credential, base });
    for (const node of api) expect((await metadata(node.url)).status, node.name).toBe(200);

    const revoked = await call(`/api/studies/links/${link.id}`, {
      token: user.token,
      base: one.url,
      method: 'DELETE',
    });
    expect(revoked.status).toBe(204);
    const revokedAt = Date.now();
    await until(
      async () => ((await metadata(other.url)).status === 401 ? true : undefined),
      1_000,
      'the other node to refuse the revoked link’s credential',
      20,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    for (const node of api) {
      expect((await ask(link.manifest, 'tulip-42', '192.0.2.73')).status, node.name).toBe(404);
      expect((await metadata(node.url)).status, node.name).toBe(401);
    }
  });

  it('counts a per-user limit on both nodes together: of 70 provider additions alternating nodes, 60 pass', async () => {
    onTestFailed(showOutput);
    const listed = (await (await call('/api/providers', { token: user.token })).json()) as {
      data: Array<{ id: string }>;
    };
    const providerId = listed.data[0]!.id;
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) {
      const res = await call('/api/users/providers', {
        token: user.token,
        base: api[i % 2]!.url,
        body: { providerId },
        ip: `192.0.2.${100 + (i % 50)}`,
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s < 300)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });

  it('counts sign-in failures of one account on both nodes together: locked after 10 alternating failures', async () => {
    onTestFailed(showOutput);
    const email = `throttle-${randomUUID()}@example.com`;
    expect((await register(email, await captcha(proxy.url), '192.0.2.30')).status).toBe(201);
    // Every other attempt to each node (the challenge before it goes through the proxy).
    for (let i = 0; i < 10; i++) {
      const res = await login(email, 'Wr0ng!Passw0rd', `192.0.2.${31 + i}`, api[i % 2]!.url);
      expect(res.status, `failure ${i + 1}`).toBe(401);
    }
    // Each node saw 5; the account is locked only if they count together. Even the right password is refused.
    const locked = await login(email, password, '192.0.2.45');
    expect(locked.status).toBe(429);
  }, 60_000);

  it('counts one address’s requests on both nodes together: of 40 sign-in requests through the proxy, 10 are refused', async () => {
    onTestFailed(showOutput);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++)
      statuses.push((await call('/api/auth/login', { body: {}, ip: '198.51.100.77' })).status);
    expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });

  it('accepts a captcha solution once across the nodes', async () => {
    onTestFailed(showOutput);
    const solved = await captcha(proxy.url);
    const answers = await Promise.all(
      [1, 2].map((n) => register(`captcha-${n}-${randomUUID()}@example.com`, solved, `192.0.2.5${n}`)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 400]);
    for (const node of api) {
      const again = await call('/api/auth/register', {
        base: node.url,
        ip: '192.0.2.59',
        body: {
          email: `late-${randomUUID()}@example.com`,
          password,
          name: 'Late',
          acceptTerms: true,
          captcha: solved,
        },
      });
      expect(again.status, node.name).toBe(400);
      expect(((await again.json()) as { code: string }).code).toBe('CAPTCHA_FAILED');
    }
  });
  it('creates one order from a payment whose webhook reaches both nodes at once, and again later', async () => {
    onTestFailed(showOutput);
    expect(studyId, 'the processing test ran').not.toBe('');
    const ip = '192.0.2.70';
    const catalogue = (await (await call('/api/services', { token: user.token, ip })).json()) as Array<{
      id: string;
      name: string;
      providers: Array<{ id: string }>;
    }>;
    const ai = catalogue.find((x) => x.name === 'AI Quick Analysis')!;
    const intentRes = await call('/api/payments/create-payment-intent', {
      token: user.token,
      ip,
      body: { serviceId: ai.id, providerId: ai.providers[0]!.id, studyId },
    });
    expect(intentRes.status, await intentRes.clone().text()).toBe(200);
    const { paymentIntentId } = (await intentRes.json()) as { paymentIntentId: string };
    // The buyer's card paid (Stripe.js, in the browser); Stripe tells us by webhook only.
    stripeApi.succeed(paymentIntentId);
    const payload = JSON.stringify({
      id: `evt_${randomBytes(10).toString('hex')}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      api_version: '2024-06-20',
      created: Math.floor(Date.now() / 1000),
      data: { object: { ...stripeApi.intents.get(paymentIntentId) } },
    });
    const signature = new Stripe('sk_test_fake').webhooks.generateTestHeaderString({
      payload,
      secret: webhookSecret,
    });
    const deliver = (base: string) =>
      fetch(`${base}/api/payments/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
    const both = await Promise.all(api.map((n) => deliver(n.url)));
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect((await deliver(api[1]!.url)).status).toBe(200);
    const purchases = async (base: string) =>
      (
        await get<Array<{ paymentIntentId?: string | null; id: string }>>(
          `/api/purchases/user/${user.id}`,
          base,
        )
      ).filter((p) => p.paymentIntentId === paymentIntentId);
    for (const node of api) expect(await purchases(node.url), node.name).toHaveLength(1);
  });
  it('lets one request at a time write an upload, whichever nodes two PATCHes at the same offset reach', async () => {
    onTestFailed(showOutput);
    const name = `${user.id}/${randomUUID()}/study.zip`;
    const token = (
      (await (await call('/api/storage/token', { token: user.token })).json()) as { accessToken: string }
    ).accessToken;
    const data = zip.subarray(0, 2 * chunkSize);
    const tus = { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}` };
    const created = await fetch(`${api[0]!.url}/api/uploads`, {
      method: 'POST',
      headers: {
        ...tus,
        'upload-length': String(data.length),
        'upload-metadata': `objectName ${Buffer.from(name).toString('base64')}`,
      },
    });
    expect(created.status).toBe(201);
    const location = new URL(created.headers.get('location')!, api[0]!.url).pathname;
    // The same first megabyte, sent slowly to both nodes at once (a client retrying on another node).
    const slowly = (bytes: Buffer) =>
      new ReadableStream<Uint8Array>({
        async start(controller) {
          for (let at = 0; at < bytes.length; at += 64 * 1024) {
            controller.enqueue(bytes.subarray(at, at + 64 * 1024));
            await new Promise((r) => setTimeout(r, 15));
          }
          controller.close();
        },
      });
    const patch = (base: string) =>
      fetch(`${base}${location}`, {
        method: 'PATCH',
        headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        body: slowly(data.subarray(0, chunkSize)),
        duplex: 'half',
      } as RequestInit).then(
        (r) => r.status,
        () => 0,
      );
    const statuses = await Promise.all(api.map((n) => patch(n.url)));
    // At most one wrote from offset 0; the other was refused (or stopped) rather than writing it twice.
    expect(statuses.filter((s) => s === 204).length).toBeLessThanOrEqual(1);
    const head = await fetch(`${api[1]!.url}${location}`, { method: 'HEAD', headers: tus });
    expect(Number(head.headers.get('upload-offset'))).toBeLessThanOrEqual(chunkSize);
    await tusUpload(proxy.url, token, name, data, {
      chunkSize,
      uploadUrl: new URL(location, proxy.url).href,
    });
    const stored = await bucket.send(new GetObjectCommand({ Bucket: s3.bucket, Key: name }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(data), 'the stored bytes').toBe(
      true,
    );
  }, 90_000);
});
