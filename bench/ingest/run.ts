/**
 * Ingest benchmark: time from the first upload byte to "completed" for
 *   - a CT-like series: 300 slices of 512x512 16-bit (dcmjs), and
 *   - many small files: 5,000 files of about 64 KB,
 * with per-stage times, next to the raw write rate of the same bytes into DATA_DIR
 * (`dd ... conv=fdatasync`) and next to Orthanc (Debian `orthanc`) receiving the same files
 * with POST /instances.
 *
 *   npx tsx bench/ingest/run.ts            (BENCH_SETS=ct,small to choose, BENCH_ROUNDS=3 interleaved rounds,
 *                                           BENCH_WITH=put,orthanc the contenders besides dd;
 *                                           needs /usr/sbin/Orthanc for the comparison)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { CHANNELS } from '../../apps/server/src/db/change-feed';
import { studyUploads } from '../../apps/server/src/db/schema/index';
import { tuneHeapForUploads } from '../../apps/server/src/heap-tuning';
import { runWithServerFlags } from '../server-flags';
import { listen, newPatient, processUploaded, storageToken } from '../../apps/server/test/helpers/studies';
import { createTestContext, eventually, type TestContext } from '../../apps/server/test/helpers/test-app';
import { median } from '../median';

const sets = (process.env.BENCH_SETS ?? 'ct,small').split(',');
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Contenders besides dd (which every ratio needs): BENCH_WITH=put,orthanc by default. Leaving them
// out shortens the server's idle time between its uploads (see the README).
const WITH = new Set((process.env.BENCH_WITH ?? 'put,orthanc').split(',').filter(Boolean));
// The set under test (`study.zip` and `files/`), made once per set by make-data.ts.
const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-ingest-'));
const zipFile = path.join(dataDir, 'study.zip');
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

/**
 * Runs one of this folder's helper scripts in a process of its own and resolves with the JSON line
 * it prints first (not when it exits). Everything but the server under test runs this way (the
 * data, the upload clients, the plain-PUT servers), so the server's process holds only itself, as
 * in production: before this, the bench made and kept 300 MiB of test data in it.
 */
function helper<T>(
  script: string,
  job: Record<string, unknown>,
): { result: Promise<T>; child: ChildProcess } {
  const child = spawn(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(new URL(script, import.meta.url)),
      JSON.stringify(job),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const result = new Promise<T>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.endsWith('\n')) resolve(JSON.parse(out) as T);
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { result, child };
}

/** Writes a data set into `dataDir`: the files for Orthanc and the ZIP for our upload and the PUTs. */
async function makeData(set: string): Promise<{ files: number; bytes: number }> {
  await rm(path.join(dataDir, 'files'), { recursive: true, force: true });
  return helper<{ files: number; bytes: number }>('./make-data.ts', { set, dir: dataDir }).result;
}

/**
 * Every contender starts from a quiet disk: this machine's virtual disk absorbs a burst far faster
 * than it sustains writes (150 MiB with fdatasync: 0.06 s right after a pause, 0.4 s right after
 * another such write), so whoever ran just before would otherwise decide the next figure.
 */
async function settleDisk(): Promise<void> {
  execFileSync('sync');
  await new Promise((r) => setTimeout(r, SETTLE_MS));
}

/** Seconds `dd conv=fdatasync` takes to write `bytes` (rounded to whole MiB) into `dir`. */
function ddSeconds(dir: string, bytes: number): number {
  const file = path.join(dir, 'dd.bin');
  const count = Math.max(1, Math.round(bytes / (1024 * 1024)));
  const t = process.hrtime.bigint();
  execFileSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=1M', `count=${count}`, 'conv=fdatasync'], {
    stdio: 'ignore',
  });
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  execFileSync('rm', ['-f', file]);
  return s;
}

/**
 * The same bytes PUT over loopback to a bare Node server (put-server.ts): with `file`, it writes them
 * to a file in DATA_DIR and syncs it; without, it only counts them.
 */
async function plainHttpSeconds(file?: string): Promise<number> {
  const server = helper<{ port: number }>('./put-server.ts', file ? { file } : {});
  try {
    const { port } = await server.result;
    const { start, end } = await uploadClient({
      mode: 'put',
      file: zipFile,
      url: `http://127.0.0.1:${port}/`,
    });
    return (end - start) / 1000;
  } finally {
    server.child.kill('SIGTERM');
    if (file) await rm(file, { force: true });
  }
}

/**
 * Runs `upload-client.ts` in its own process, as the browser is: sending the bytes must not take
 * the server's event loop. Resolves with when it started sending and when the upload ended (epoch ms).
 */
function uploadClient(
  job: Record<string, unknown>,
): Promise<{ start: number; end: number; processed?: number }> {
  return helper<{ start: number; end: number; processed?: number }>('./upload-client.ts', job).result;
}

async function orthanc(): Promise<number | null> {
  if (!existsSync('/usr/sbin/Orthanc')) return null;
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-orthanc-'));
  const port = 18000 + Math.floor(Math.random() * 1000);
  const config = {
    Name: 'bench',
    StorageDirectory: path.join(dir, 'db'),
    IndexDirectory: path.join(dir, 'db'),
    HttpPort: port,
    DicomPort: port + 1,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: false,
    Plugins: [],
  };
  await writeFile(path.join(dir, 'orthanc.json'), JSON.stringify(config));
  const proc = spawn('/usr/sbin/Orthanc', [path.join(dir, 'orthanc.json')], { stdio: 'ignore' });
  try {
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${port}/system`).catch(() => null))?.ok,
      30_000,
    );
    const { start, end } = await uploadClient({
      mode: 'orthanc',
      dir: path.join(dataDir, 'files'),
      url: `http://127.0.0.1:${port}/instances`,
    });
    return (end - start) / 1000;
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

interface Ours {
  upload: number;
  processCall: number;
  queued: number;
  total: number;
  stages: Record<string, number>;
  /** Server process CPU (user + system, all threads) and garbage-collection pauses during the upload. */
  serverCpu: number;
  /** The part of serverCpu spent in the kernel (page faults, copies into the page cache, sockets). */
  serverSystem: number;
  gc: number;
}
type Summary = { stages: Record<string, number> };
interface Round extends Ours {
  dd: number;
  /** dd again at once, without the pause (the two differ a lot on some machines; see the README). */
  ddBusy: number;
  put: number | null;
  /** The same PUT to a server that discards the bytes. */
  discard: number | null;
  orthanc: number | null;
}
const s3 = (seconds: number | undefined) => `${(seconds ?? 0).toFixed(3)} s`;

/**
 * One upload of the archive in zipFile by a new patient (so no round finds instances an earlier one
 * stored), timed from the client's first byte to `completed`; times in seconds.
 */
async function ours(ctx: TestContext, base: string): Promise<Ours> {
  const patient = await newPatient(ctx, `bench-${randomUUID()}@example.com`);
  const objectName = `${patient.id}/${randomUUID()}/study.zip`;
  const token = await storageToken(ctx, patient);
  const committed = new Promise<number>((resolve) =>
    ctx.services.changes.subscribe(CHANNELS.studyList, {
      change: (ownerId) => ownerId === patient.id && resolve(Date.now()),
      gap() {},
    }),
  );
  await settleDisk();
  // What the server process spends while the bytes arrive: CPU (all threads) and garbage collection.
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  });
  gc.observe({ entryTypes: ['gc'] });
  const cpu0 = process.cpuUsage();
  // The client uploads, then asks for processing at once, as the upload page does.
  const { start, end, processed } = await uploadClient({
    mode: 'tus',
    file: zipFile,
    base,
    token,
    objectName,
    // The browser's chunk size (apps/web/src/features/upload/utils/tus-upload.ts).
    chunkSize: 32 * 1024 * 1024,
    process: {
      url: `${base}/api/studies/process`,
      headers: patient.auth,
      body: { prefix: objectName, jobContext: { uploadType: 'regular' } },
    },
  });
  const cpu = process.cpuUsage(cpu0);
  gc.disconnect();
  // The studies list changes (a database notification) when the indexing transaction commits, which
  // also marks the upload completed. Waiting for it instead of polling keeps the bench's queries out
  // of the server's database while the job runs.
  const finished = async () => {
    const [row] = await ctx.services.database.db
      .select()
      .from(studyUploads)
      .where(eq(studyUploads.objectName, objectName));
    return row?.status === 'completed' || row?.status === 'failed' ? row : undefined;
  };
  // A failed job changes no study: a slow poll (every 100 ms) notices that.
  const done = await Promise.race([
    committed,
    eventually(async () => (await finished()) && Date.now(), 600_000),
  ]);
  // The stage times are written just after the commit.
  const row = await eventually(async () => {
    const r = await finished();
    return r?.status === 'failed' || (r?.summary as Summary | undefined)?.stages?.total !== undefined
      ? r
      : undefined;
  }, 10_000);
  if (row.status !== 'completed') throw new Error(`processing failed: ${row.reason}`);
  const stages = Object.fromEntries(
    Object.entries((row.summary as Summary).stages).map(([k, v]) => [k, v / 1000]),
  );
  return {
    upload: (end - start) / 1000,
    processCall: ((processed ?? end) - end) / 1000,
    queued: (done - end - (stages.total ?? 0) * 1000) / 1000,
    total: (done - start) / 1000,
    stages,
    serverCpu: (cpu.user + cpu.system) / 1e6,
    serverSystem: cpu.system / 1e6,
    gc: gcMs / 1000,
  };
}

// The server process tunes its heap at start (apps/server/src/main.ts); this in-process server too.
runWithServerFlags();
tuneHeapForUploads();
const ctx = await createTestContext({ LOG_LEVEL: 'silent', DEFAULT_MAX_STORAGE_GB: '100' });
try {
  const base = await listen(ctx);
  // One small upload first, not counted: the first request through a code path pays for compiling
  // it (and, here, for tsx transpiling the server's modules on first use), which a running server
  // has long paid. Orthanc is native code and has nothing to warm.
  {
    const warm = await newPatient(ctx, `bench-warm-up-${randomUUID()}@example.com`);
    await makeData('warm');
    const objectName = `${warm.id}/${randomUUID()}/study.zip`;
    await uploadClient({
      mode: 'tus',
      file: zipFile,
      base,
      token: await storageToken(ctx, warm),
      objectName,
      chunkSize: 32 * 1024 * 1024,
    });
    await processUploaded(ctx, warm, objectName);
  }
  for (const set of sets) {
    const { files, bytes } = await makeData(set);
    console.log(
      `\n== ${set === 'ct' ? 'CT series, 300 x 512x512 16-bit' : '5,000 files of ~64 KB'}: ${files} files, ${mb(bytes)} MiB, ${ROUNDS} round(s)`,
    );
    const rounds: Round[] = [];
    // Rounds interleave the contenders, so a slow spell of the machine touches all of them.
    for (let r = 0; r < ROUNDS; r++) {
      const o = await ours(ctx, base);
      await settleDisk();
      const dd = ddSeconds(ctx.dataDir, bytes);
      const ddBusy = ddSeconds(ctx.dataDir, bytes);
      await settleDisk();
      const put = WITH.has('put') ? await plainHttpSeconds(path.join(ctx.dataDir, 'plain-http.bin')) : null;
      if (WITH.has('put')) await settleDisk();
      const discard = WITH.has('put') ? await plainHttpSeconds() : null;
      const orth = WITH.has('orthanc') ? await orthanc() : null;
      rounds.push({ ...o, dd, ddBusy, put, discard, orthanc: orth });
      console.log(
        `round ${r + 1}: upload ${s3(o.upload)} | process call ${s3(o.processCall)} | list ${s3(o.stages.list)} | unzip+parse ${s3(o.stages.unzipParse)} | store ${s3(o.stages.store)} | index ${s3(o.stages.index)} | before the job ran ${s3(o.queued)} | first byte -> completed ${s3(o.total)} | server CPU during upload ${s3(o.serverCpu)} (system ${s3(o.serverSystem)}), GC ${s3(o.gc)}` +
          ` || dd ${s3(dd)} (again at once ${s3(ddBusy)}) | plain PUT ${put === null ? 'n/a' : s3(put)} (no disk ${discard === null ? 'n/a' : s3(discard)}) | Orthanc ${orth === null ? 'n/a' : s3(orth)}` +
          ` || ratio to dd ${(dd / o.total).toFixed(2)}${orth === null ? '' : ` | speed-up ${(orth / o.total).toFixed(2)}x`}`,
      );
    }
    const m = (pick: (r: Round) => number) => median(rounds.map(pick));
    const range = (pick: (r: Round) => number, digits = 2) => {
      const v = rounds.map(pick).sort((a, b) => a - b);
      return `${v[0]!.toFixed(digits)}–${v[v.length - 1]!.toFixed(digits)}`;
    };
    const total = m((r) => r.total);
    console.log(
      `median: upload ${s3(m((r) => r.upload))} | index ${s3(m((r) => r.stages.index ?? 0))} | first byte -> completed ${s3(total)} (${range((r) => r.total)} s) = ${mb(bytes / total)} MiB/s`,
    );
    console.log(
      `median: dd conv=fdatasync ${s3(m((r) => r.dd))} (${mb(bytes / m((r) => r.dd))} MiB/s) | ratio ${m((r) => r.dd / r.total).toFixed(2)} (per round ${range((r) => r.dd / r.total)}; target >= 0.4)`,
    );
    console.log(
      `median: dd again right after it ${s3(m((r) => r.ddBusy))} (${mb(bytes / m((r) => r.ddBusy))} MiB/s, no pause before it) | ratio ${m((r) => r.ddBusy / r.total).toFixed(2)} (per round ${range((r) => r.ddBusy / r.total)})`,
    );
    if (rounds[0]!.put !== null)
      console.log(
        `median: plain HTTP PUT into a file (no tus, no processing) ${s3(m((r) => r.put!))} = ${m((r) => r.dd / r.put!).toFixed(2)} of dd | ours = ${m((r) => r.put! / r.total).toFixed(2)} of it`,
      );
    if (rounds[0]!.discard !== null)
      console.log(
        `median: the same PUT to a server that discards the bytes ${s3(m((r) => r.discard!))} = ${m((r) => r.dd / r.discard!).toFixed(2)} of dd (moving the bytes over HTTP alone)`,
      );
    if (rounds[0]!.orthanc !== null)
      console.log(
        `median: Orthanc POST /instances ${s3(m((r) => r.orthanc!))} | speed-up ${m((r) => r.orthanc! / r.total).toFixed(2)}x (per round ${range((r) => r.orthanc! / r.total)}; target >= 1.5x)`,
      );
    else if (WITH.has('orthanc'))
      console.log('Orthanc not installed (apt-get install -y orthanc): comparison skipped');
  }
} finally {
  await ctx.close();
  await rm(dataDir, { recursive: true, force: true });
}
