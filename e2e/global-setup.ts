import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts the app with `npm start` (as the README does) on a free port with a throwaway DATA_DIR,
 * and reads the first admin's one-time password from its log.
 */
export default async function globalSetup() {
  const port = await freePort();
  const viewerPort = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mi-e2e-'));
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      VIEWER_PORT: String(viewerPort),
      VIEWER_PUBLIC_URL: `http://127.0.0.1:${viewerPort}`,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SMTP_URL: '',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null || Date.now() - started > 120_000) {
      throw new Error(`app did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const password = /one-time password: (\S+)/.exec(log)?.[1];
  if (!password) throw new Error(`admin password not printed:\n${log}`);
  process.env.E2E_BASE_URL = base;
  process.env.E2E_VIEWER_URL = `http://127.0.0.1:${viewerPort}`;
  process.env.E2E_ADMIN_EMAIL = 'admin@localhost.localdomain';
  process.env.E2E_ADMIN_PASSWORD = password;
  console.log(`e2e: app started in ${Date.now() - started} ms at ${base}`);

  return async () => {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 1_000));
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
}
