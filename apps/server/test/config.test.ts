import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'mi-config-'));

describe('configuration', () => {
  it('has working defaults for the embedded stack', () => {
    const dir = dataDir();
    const c = loadConfig({ DATA_DIR: dir });
    expect(c).toMatchObject({
      port: 3000,
      viewerPort: 3001,
      defaultMaxStorageGB: 10,
      databaseUrl: undefined,
      s3: undefined,
      smtpUrl: undefined,
    });
    expect(c.publicUrl).toBe('http://localhost:3000');
    expect(c.secureCookies).toBe(false);
  });

  it('generates SESSION_SECRET once and keeps it in DATA_DIR', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir }).sessionSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ DATA_DIR: dir }).sessionSecret).toBe(first);
    expect(readFileSync(path.join(dir, 'session-secret'), 'utf8').trim()).toBe(first);
  });

  it('lists every bad variable in one message', () => {
    let error: unknown;
    try {
      loadConfig({
        DATA_DIR: dataDir(),
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        DEFAULT_MAX_STORAGE_GB: '-1',
        S3_BUCKET: 'bucket',
        SMTP_URL: 'http://mail',
        TERMS_URL: 'javascript:alert(1)',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'DEFAULT_MAX_STORAGE_GB',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'SMTP_URL',
      'TERMS_URL',
    ]) {
      expect(message).toContain(name);
    }
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: '', PORT: '' }).port).toBe(3000);
  });

  it('runs jobs in serve unless told not to, which only PostgreSQL allows', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).serveRunsJobs).toBe(true);
    const pg = { DATA_DIR: dataDir(), DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };
    expect(loadConfig({ ...pg, SERVE_RUNS_JOBS: 'false' }).serveRunsJobs).toBe(false);
    expect(() => loadConfig({ DATA_DIR: dataDir(), SERVE_RUNS_JOBS: 'false' })).toThrow(
      /SERVE_RUNS_JOBS: only PostgreSQL/,
    );
  });
});
