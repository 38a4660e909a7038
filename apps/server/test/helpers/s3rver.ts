import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** S3_* variables for loadConfig that point the app at this server. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Runs a real s3rver, storing into `directory` (a fresh temporary one by default), in a child Node
 * process on a free port.
 *
 * Out of process because s3rver encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3
 * (Node >= 17) only provides through its legacy provider, and that can only be switched on when a
 * process starts. In-process, every paginated listing fails with a 500 (ERR_OSSL_EVP_UNSUPPORTED).
 */
export async function startS3rver(opts: { directory?: string; bucket?: string } = {}): Promise<LocalS3> {
  const bucket = opts.bucket ?? 'mi-test';
  const ownDir = opts.directory ? undefined : await mkdtemp(path.join(tmpdir(), 'mi-s3rver-'));
  const directory = opts.directory ?? ownDir!;
  const s3rverPath = createRequire(import.meta.url).resolve('s3rver');
  const script = `
    const S3rver = require(${JSON.stringify(s3rverPath)});
    new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: ${JSON.stringify(directory)},
      configureBuckets: [{ name: ${JSON.stringify(bucket)} }],
    }).run().then(
      (addr) => process.stdout.write('S3RVER_READY ' + JSON.stringify(addr) + '\\n'),
      (err) => { console.error(err); process.exit(1); },
    );
    // Stop with the test: our stdin closes when the parent ends it or goes away.
    process.stdin.on('end', () => process.exit(0)).resume();
  `;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('S3RVER_READY '))
        resolve(JSON.parse(line.slice('S3RVER_READY '.length)) as AddressInfo);
    });
    void exited.then(() => reject(new Error(`s3rver exited early with code ${child.exitCode}`)));
  });
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    async stop() {
      child.stdin.end();
      await exited;
      if (ownDir) await rm(ownDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs moto's S3 server (Python `moto[server]`, `moto_server` on PATH) on a free port with one bucket.
 *
 * For the tus S3 store: it needs ListParts and ListMultipartUploads, which s3rver does not implement
 * (it answers 405), while moto implements the multipart API as S3 does.
 */
export async function startMotoS3(opts: { bucket?: string } = {}): Promise<LocalS3> {
  const bucket = opts.bucket ?? 'mi-test';
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // moto does not notice its parent going away; never leave it running after a crashed test run.
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (err) =>
      reject(
        new Error(
          `moto_server could not start (install it with: pip install "moto[server]"): ${err.message}`,
        ),
      ),
    ),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const ready = (async () => {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`moto_server exited early: ${stderr}`);
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
        return;
      } catch (err) {
        if (i > 150) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  })();
  try {
    await Promise.race([ready, spawnError]);
  } catch (err) {
    ready.catch(() => undefined);
    killOnExit();
    process.off('exit', killOnExit);
    throw err;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    bucket,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'test',
      S3_SECRET_ACCESS_KEY: 'test',
      S3_FORCE_PATH_STYLE: 'true',
    },
    async stop() {
      process.off('exit', killOnExit);
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `moto_server` is on PATH (tests that need it skip, saying so, when it is not). */
export function motoInstalled(): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && existsSync(path.join(dir, 'moto_server')));
}
