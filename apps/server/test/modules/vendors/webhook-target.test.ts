import { createServer, type Server } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../../../src/db/schema/index';
import { hashPassword } from '../../../src/modules/auth/password';
import {
  addressProblem,
  createWebhookSender,
  resolveHost,
  WebhookTargetError,
  webhookTargetProblem,
  type ResolveHost,
} from '../../../src/modules/vendors/webhook-target';
import { createTestContext, strongPassword, type TestContext } from '../../helpers/test-app';

/**
 * Where vendor webhooks may go (modules/vendors/webhook-target.ts). DNS is this machine's own for
 * `localhost` (its hosts file), and a stand-in resolver elsewhere: this machine has no public DNS,
 * and a test must not depend on what a public name resolves to today.
 */

/** A resolver answering from a table, as DNS would; `calls` counts the lookups. */
function fakeDns(table: Record<string, string[]>) {
  const dns = {
    table,
    calls: 0,
    resolve: (async (hostname: string) => {
      dns.calls++;
      const found = dns.table[hostname];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    }) as ResolveHost,
  };
  return dns;
}

const REFUSED_ADDRESSES = [
  '127.0.0.1',
  '127.1.2.3',
  '::1',
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
  'fc00::1',
  'fe80::1',
  '::ffff:127.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '64:ff9b::a00:1',
  '0.0.0.0',
  '::',
  '224.0.0.1',
  '255.255.255.255',
  '198.18.0.1',
];

describe('addresses', () => {
  it('allows public unicast addresses only', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '2606:2800:220:1:248:1893:25c8:1946',
      '::ffff:8.8.8.8',
    ])
      expect(addressProblem(address, false), address).toBeNull();
    for (const address of REFUSED_ADDRESSES) expect(addressProblem(address, false), address).not.toBeNull();
    expect(addressProblem('169.254.169.254', false)).toMatch(/link-local/);
    expect(addressProblem('100.100.100.200', false)).toMatch(/carrier-grade NAT/);
    expect(addressProblem('fd00:ec2::254', false)).toMatch(/unique local/);
  });

  it('allows loopback, and nothing else private, only when loopback is allowed', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(addressProblem(address, true), address).toBeNull();
    for (const address of REFUSED_ADDRESSES.filter((a) => !/^(127\.|::1$|::ffff:127)/.test(a)))
      expect(addressProblem(address, true), address).not.toBeNull();
  });
});

describe('a webhook URL being set', () => {
  const dns = fakeDns({
    'localtest.me': ['127.0.0.1'],
    'vendor.example.com': ['93.184.216.34'],
    'mixed.example.com': ['93.184.216.34', '10.1.2.3'],
    'metadata.google.internal': ['169.254.169.254'],
    'v6-internal.example.com': ['fd00::5'],
  });
  const problem = (url: string, allowLoopback = false) =>
    webhookTargetProblem(url, { allowLoopback, resolve: dns.resolve });

  it('is refused when it points inside, over https as over http', async () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://127.0.0.1:8443/hook',
      'https://[::1]/hook',
      'https://localtest.me/',
      'https://localtest.me:443/hook',
      'https://10.0.0.1/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://100.100.100.200/',
      'https://[fd00:ec2::254]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://0.0.0.0/',
      'https://2130706433/',
      'https://0x7f.1/',
      'https://mixed.example.com/hook',
      'https://v6-internal.example.com/hook',
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
    ])
      expect(await problem(url), url).not.toBeNull();
    expect(await problem('https://localtest.me/')).toBe(
      'localtest.me resolves to this machine (loopback), which is not allowed.',
    );
  });

  it('is refused for a name this machine resolves to 127.0.0.1 (localhost), with the real resolver', async () => {
    expect(
      await webhookTargetProblem('https://localhost/hook', { allowLoopback: false, resolve: resolveHost }),
    ).toMatch(/localhost resolves to this machine/);
  });

  it('is accepted for public addresses, and for loopback where loopback is allowed', async () => {
    expect(await problem('https://vendor.example.com/hook')).toBeNull();
    expect(await problem('https://93.184.216.34/hook')).toBeNull();
    expect(await problem('https://localtest.me/', true)).toBeNull();
    expect(await problem('http://127.0.0.1:8080/hook', true)).toBeNull();
    expect(await problem('https://10.0.0.1/hook', true)).not.toBeNull();
    // Not resolvable now: nothing can be sent there until it is, and each call checks again.
    expect(await problem('https://not-yet.example.com/hook')).toBeNull();
  });
});

describe('a webhook call', () => {
  let server: Server;
  let port: number;
  const received: string[] = [];
  let landingHits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(`${req.method} ${req.url} host=${req.headers.host}`);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/landing` }).end();
        return;
      }
      if (req.url === '/landing') landingHits++;
      req.resume();
      req.on('end', () => res.writeHead(202).end('ok'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('connects to the address it checked (the name is resolved once, by the check)', async () => {
    const dns = fakeDns({ 'vendor.test': ['127.0.0.1'] });
    const post = createWebhookSender({ allowLoopback: true, resolve: dns.resolve, timeoutMs: 2_000 });
    received.length = 0;
    expect(await post(`http://vendor.test:${port}/hook`, { 'x-test': '1' }, '{}')).toBe(202);
    expect(received).toEqual([`POST /hook host=vendor.test:${port}`]);
    expect(dns.calls).toBe(1);
  });

  it('is not made when the name now resolves inside (DNS rebinding), however it resolved before', async () => {
    const dns = fakeDns({ 'rebind.test': ['93.184.216.34'] });
    expect(
      await webhookTargetProblem('https://rebind.test/hook', { allowLoopback: false, resolve: dns.resolve }),
    ).toBeNull();
    // The name now points at this machine: no connection is made.
    dns.table['rebind.test'] = ['127.0.0.1'];
    const post = createWebhookSender({ allowLoopback: false, resolve: dns.resolve, timeoutMs: 2_000 });
    received.length = 0;
    const err = await post(`http://rebind.test:${port}/hook`, {}, '{}').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookTargetError);
    expect(String((err as Error).message)).toMatch(/rebind\.test resolves to 127\.0\.0\.1/);
    // Nor where loopback is allowed, when it points at a private network or cloud metadata.
    for (const inside of ['10.0.0.7', '169.254.169.254', 'fd00:ec2::254']) {
      dns.table['rebind.test'] = [inside];
      const allowed = createWebhookSender({ allowLoopback: true, resolve: dns.resolve, timeoutMs: 2_000 });
      const e = await allowed(`http://rebind.test:${port}/hook`, {}, '{}').catch((x: unknown) => x);
      expect(e, inside).toBeInstanceOf(WebhookTargetError);
    }
    expect(received).toEqual([]);
  });

  it('is not made to an address inside given literally', async () => {
    const post = createWebhookSender({ allowLoopback: false, resolve: resolveHost, timeoutMs: 2_000 });
    received.length = 0;
    for (const url of [`http://127.0.0.1:${port}/hook`, `https://[::ffff:127.0.0.1]:${port}/hook`]) {
      const err = await post(url, {}, '{}').catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(WebhookTargetError);
    }
    expect(received).toEqual([]);
  });

  it('does not follow a redirect: its status is the answer', async () => {
    const post = createWebhookSender({ allowLoopback: true, resolve: resolveHost, timeoutMs: 2_000 });
    expect(await post(`http://127.0.0.1:${port}/redirect`, {}, '{}')).toBe(302);
    expect(landingHits).toBe(0);
  });
});

describe('setting a webhook in production', () => {
  let ctx: TestContext;
  let auth: { authorization: string };
  let providerId: string;

  beforeAll(async () => {
    ctx = await createTestContext({ NODE_ENV: 'production' });
    await ctx.services.users.insertIfEmailFree({
      email: 'vendor-admin@example.com',
      emailNormalized: 'vendor-admin@example.com',
      passwordHash: await hashPassword(strongPassword),
      role: 'admin',
      accountStatus: 'active',
    });
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: {
        email: 'vendor-admin@example.com',
        password: strongPassword,
        captcha: await ctx.captcha('vendor-admin@example.com'),
      },
    });
    auth = { authorization: `Bearer ${login.json().data.authToken as string}` };
    // Any directory provider can be made a vendor.
    const [row] = await ctx.services.database.db.select({ id: providers.id }).from(providers).limit(1);
    providerId = row!.id;
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
  });

  const put = (webhookUrl: string) =>
    ctx.app.inject({
      method: 'PUT',
      url: `/api/admin/providers/${providerId}/vendor`,
      headers: auth,
      payload: { webhookUrl },
    });

  it('refuses loopback (literal or a name resolving to it), private, link-local, CGNAT and unique-local targets', async () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://localhost/hook',
      'http://localhost:8080/hook',
      'https://[::1]/',
      'https://10.0.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://100.64.1.1/',
      'https://[fd00:ec2::254]/',
    ]) {
      const res = await put(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(422);
      expect(res.json().code).toBe('UNPROCESSABLE');
    }
    expect((await put('https://localhost/hook')).json().error).toBe(
      'localhost resolves to this machine (loopback), which is not allowed.',
    );
    const [row] = await ctx.services.database.db.select().from(providers).where(eq(providers.id, providerId));
    expect(row!.vendorWebhookUrl).toBeNull();
  });

  it('accepts a public address', async () => {
    const res = await put('https://93.184.216.34/hook');
    expect(res.statusCode, res.body).toBe(200);
  });
});
