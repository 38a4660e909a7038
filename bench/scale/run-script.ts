import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs a script of this folder (a load generator or a client) in a process of its own, so it never
 * shares the server's event loop, with one JSON argument; resolves with its last line parsed.
 */
export function runScript<T>(script: string, job: unknown): Promise<T> {
  const file = fileURLToPath(new URL(script, import.meta.url));
  const argv = script.endsWith('.ts') ? ['--import', import.meta.resolve('tsx'), file] : [file];
  const child = spawn(process.execPath, [...argv, JSON.stringify(job)], {
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
