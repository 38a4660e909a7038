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

export interface AppProcess {
  base: string;
  viewer: string;
  /** What the app printed so far (the admin's one-time password, demo accounts). */
  log(): string;
  adminPassword: string;
  stop(): Promise<void>;
}

/**
 * Starts the app as the README does (`npm start`, or another npm script such as `demo`) on free
 * ports with a throwaway DATA_DIR, waits for it to answer, and reads the first admin's one-time
 * password from its log.
 */
export async function startApp(
  script: 'start' | 'demo' = 'start',
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const port = await freePort();
  const viewerPort = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mi-e2e-'));
  const child = spawn('npm', script === 'start' ? ['start'] : ['run', script], {
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
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  const stop = async () => {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 1_000));
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (;;) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null || Date.now() - started > 120_000) {
      await stop();
      throw new Error(`app did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  // The admin is created just before the server listens; its password is in the log by now.
  const adminPassword = /one-time password: (\S+)/.exec(log)?.[1];
  if (!adminPassword) {
    await stop();
    throw new Error(`admin password not printed:\n${log}`);
  }
  return { base, viewer: `http://127.0.0.1:${viewerPort}`, log: () => log, adminPassword, stop };
}
