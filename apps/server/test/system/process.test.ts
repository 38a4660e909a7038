import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captcha, freePort, killServers, startServer, waitHealthy } from '../helpers/server-process';

afterAll(() => killServers());

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
    await waitHealthy(base, first);
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
    // Killed once a few writes are committed (how long that takes depends on the machine's load).
    const deadline = Date.now() + 60_000;
    while (committed.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await first.exited;
    expect(committed.length).toBeGreaterThan(3);

    const restarted = startServer({ DATA_DIR: dataDir, PORT: String(port) });
    await waitHealthy(base, restarted);
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
