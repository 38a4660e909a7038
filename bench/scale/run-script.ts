import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs a script of this folder (a load generator or a client) in a process of its own, so it never
 * shares the server's event loop, with one JSON argument; resolves with its last line parsed.
 * `cores` (a taskset list such as "1") keeps the process, and every thread it starts, on those cores.
 */
export function runScript<T>(script: string, job: unknown, opts: { cores?: string } = {}): Promise<T> {
  const file = fileURLToPath(new URL(script, import.meta.url));
  const argv = script.endsWith('.ts') ? ['--import', import.meta.resolve('tsx'), file] : [file];
  const node = [process.execPath, ...argv, JSON.stringify(job)];
  const [command, ...args] = opts.cores ? ['taskset', '-c', opts.cores, ...node] : node;
  const child = spawn(command!, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').pop()!) as T)
        : reject(new Error(`${script} exited with ${code}`)),
    );
  });
}
