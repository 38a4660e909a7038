import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { afterAll, describe, expect, it } from 'vitest';

const serverDir = path.resolve(__dirname, '..');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts `main.ts serve` as its own process, the way `npm start` runs it. */
function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: serverDir,
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', ALTCHA_COST: '1', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, output: () => output };
}

async function waitHealthy(base: string, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become healthy');
}

async function captcha(base: string) {
  const challenge = (await (await fetch(`${base}/api/auth/captcha/challenge`)).json()) as Parameters<
    typeof solveChallenge
  >[0]['challenge'];
  const solution = await solveChallenge({ challenge, deriveKey });
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

async function register(base: string, email: string) {
  const res = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email,
      password: 'Str0ng!Passw0rd',
      name: 'Kill Test',
      acceptTerms: true,
      captcha: await captcha(base),
    }),
  });
  return res.status;
}

describe.skipIf(Boolean(process.env.DATABASE_URL))('the embedded server process', () => {
  it('refuses a second process on the same data directory, and loses nothing committed when killed with SIGKILL', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mi-kill-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = startServer({ DATA_DIR: dataDir, PORT: String(port) });
    await waitHealthy(base);
    expect(first.output()).toContain('Admin account created');

    const second = startServer({ DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(await second.exited).toBe(75);
    expect(second.output()).toContain('is in use by another process');

    // Write continuously from four clients, then kill the server mid-write.
    const committed: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const email = `kill-${w}-${i}@example.com`;
        try {
          if ((await register(base, email)) === 201) committed.push(email);
        } catch {
          return; // connection dropped by the kill
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await new Promise((r) => setTimeout(r, 2_500));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await first.exited;
    expect(committed.length).toBeGreaterThan(3);

    const restarted = startServer({ DATA_DIR: dataDir, PORT: String(port) });
    await waitHealthy(base);
    expect(restarted.output()).not.toContain('Admin account created');
    for (const email of committed) {
      const res = await fetch(`${base}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'Str0ng!Passw0rd', captcha: await captcha(base) }),
      });
      expect(res.status, email).toBe(200);
    }
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);
  }, 180_000);
});
