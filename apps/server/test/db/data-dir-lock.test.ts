import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/db/data-dir-lock';
import { openDatabase } from '../../src/db/client';

describe('embedded database lock', () => {
  it('refuses a second opener of the same PGlite directory with a clear message', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mi-lock-'));
    const first = await openDatabase({ dataDir: dir });
    try {
      await expect(openDatabase({ dataDir: dir })).rejects.toThrow(DataDirLockedError);
      await expect(openDatabase({ dataDir: dir })).rejects.toThrow(
        /in use by another process.*DATABASE_URL/s,
      );
    } finally {
      await first.close();
    }
    expect(existsSync(path.join(dir, 'server.lock'))).toBe(false);
    const again = await openDatabase({ dataDir: dir });
    await again.close();
  });

  it('refuses while another live process holds the lock', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mi-lock-'));
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeFileSync(path.join(dir, 'server.lock'), String(holder.pid));
      expect(() => lockDataDir(dir)).toThrow(new RegExp(`pid ${holder.pid}`));
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over a lock left by a process that was killed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mi-lock-'));
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    writeFileSync(path.join(dir, 'server.lock'), String(dead.pid));
    const release = lockDataDir(dir);
    release();
  });
});
