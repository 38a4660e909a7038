import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { YOUNG_GENERATION_FLAG } from '../../src/heap-tuning';

// The real server as its own process (`main.ts serve`, the way `npm start` runs it, or `main.ts
// worker`), for tests that kill it: process.test.ts, crash-recovery.test.ts and multi-node.test.ts.
//
// With SERVER_IMAGE set (an image the Dockerfile built, e.g. `medical-imaging:latest`), each server
// is a container of that image instead, on the host's network, so multi-node.test.ts proves the image
// itself (docs/deploy.md, "What was checked, and how"). DATA_DIR and TMPDIR are mounted at the same
// paths, so a test sees the files a node writes; signals go to the container.
const serverImage = process.env.SERVER_IMAGE;

const serverDir = path.resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];

/** Kills every server these helpers started that is still running (call it in afterAll). */
export function killServers(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // Killing `docker run` leaves its container running: remove those too.
  if (containers.length > 0) {
    try {
      execFileSync('docker', ['rm', '--force', ...containers.splice(0)], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
  /** Sends a signal to the server itself: SIGKILL kills it, SIGSTOP and SIGCONT pause and resume it. */
  signal(signal: 'SIGKILL' | 'SIGTERM' | 'SIGSTOP' | 'SIGCONT'): void;
}

export interface StartOptions {
  /** `serve` (the default) or `worker`; `args` follow it (`['--no-jobs']`). */
  command?: 'serve' | 'worker';
  args?: string[];
}

/**
 * Starts `main.ts serve` on the embedded database with a trivial captcha cost; `env` adds to it (a
 * DATABASE_URL in it puts the process on PostgreSQL).
 */
export function startServer(env: Record<string, string>, opts: StartOptions = {}): ServerProcess {
  const command = [opts.command ?? 'serve', ...(opts.args ?? [])];
  const fullEnv = { DATABASE_URL: '', LOG_LEVEL: 'warn', ALTCHA_COST: '1', HOST: '127.0.0.1', ...env };
  const container = serverImage ? `mi-test-${process.pid}-${children.length}` : undefined;
  const child = container
    ? spawn('docker', dockerRunArgs(serverImage!, container, fullEnv, command), {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [YOUNG_GENERATION_FLAG, '--import', 'tsx', 'src/main.ts', ...command], {
        cwd: serverDir,
        env: { ...process.env, ...fullEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  children.push(child);
  if (container) containers.push(container);
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const signal: ServerProcess['signal'] = (sig) => {
    if (!container) {
      child.kill(sig);
      return;
    }
    // `docker run` does not pass SIGKILL or SIGSTOP on; the engine does (pause freezes the cgroup).
    const args =
      sig === 'SIGSTOP'
        ? ['pause', container]
        : sig === 'SIGCONT'
          ? ['unpause', container]
          : ['kill', '--signal', sig, container];
    execFileSync('docker', args, { stdio: 'ignore' });
  };
  return { child, exited, output: () => output, signal };
}

const containers: string[] = [];

/**
 * `docker run` of the image with the command given, the way docs/deploy.md runs it: host network (so
 * the database, bucket and ports the test chose are the same), only the environment given, DATA_DIR
 * and TMPDIR mounted where the test reads them (writable by the image's unprivileged user).
 */
function dockerRunArgs(
  image: string,
  name: string,
  env: Record<string, string>,
  command: string[],
): string[] {
  const args = ['run', '--rm', '--init', '--name', name, '--network', 'host', '--no-healthcheck'];
  for (const key of ['DATA_DIR', 'TMPDIR']) {
    const dir = env[key];
    if (!dir) continue;
    chmodSync(dir, 0o777);
    args.push('--volume', `${dir}:${dir}`);
  }
  for (const [key, value] of Object.entries(env)) args.push('--env', `${key}=${value}`);
  return [...args, image, ...command];
}

/** Waits for /api/health to answer; fails at once, with its output, if the process exits instead. */
export async function waitHealthy(base: string, server: ServerProcess, timeoutMs = 120_000): Promise<void> {
  let exit: number | null | undefined;
  void server.exited.then((code) => (exit = code));
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (exit !== undefined)
      throw new Error(`the server exited with code ${exit} while starting:\n${server.output().slice(-4000)}`);
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become healthy');
}

/**
 * A solved ALTCHA payload from the server's own challenge endpoint; with `email`, as hard as sign-ins
 * to that account currently need.
 */
export async function captcha(base: string, email?: string): Promise<string> {
  const query = email ? `?${new URLSearchParams({ email }).toString()}` : '';
  const challenge = (await (await fetch(`${base}/api/auth/captcha/challenge${query}`)).json()) as Parameters<
    typeof solveChallenge
  >[0]['challenge'];
  const solution = await solveChallenge({ challenge, deriveKey });
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` every `everyMs` until it returns something other than undefined; names `what` on timeout. */
export async function until<T>(
  fn: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
