import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {}

/**
 * PGlite allows one process per data directory. We take a pid file with O_EXCL; a file left by a
 * process that no longer runs (SIGKILL, crash) is taken over, so a restart right after a kill works.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'server.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      if (Number.isInteger(holder) && holder > 0 && (holder === process.pid || isRunning(holder))) {
        throw new DataDirLockedError(
          `The data directory ${dir} is in use by another process (pid ${holder}). ` +
            'The embedded database allows one process; stop it first, or set DATABASE_URL to use PostgreSQL ' +
            'for several processes.',
        );
      }
      // Stale lock from a process that is gone: remove it and try again.
      try {
        unlinkSync(file);
      } catch {
        /* someone else removed it */
      }
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dir}.`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
