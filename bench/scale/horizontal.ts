/**
 * Horizontal figures, on PostgreSQL: what a second process buys.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/scale/horizontal.ts
 *
 * 1. Ingest: one API node (`serve --no-jobs`) and 1, then 2 `worker` processes. Four clients each
 *    upload one CT study (BENCH_SLICES (200) slices of BENCH_SIZE (512)² 16-bit pixels, a store-mode
 *    ZIP, through tus then `POST /api/studies/process`) at the same time (horizontal-client.ts, a
 *    process of its own, the studies made before the clock starts). The time runs from the first
 *    byte sent to the latest `finished_at` of the four uploads, set by the indexing transaction just
 *    before it commits. BENCH_INGEST_ROUNDS (5) rounds of each, interleaved 1, 2, 1, 2, ….
 * 2. List: one user with BENCH_STUDIES (2,000) studies (seed-studies.ts); `GET /api/studies/user/:id`
 *    with `accept-encoding: gzip`, closed loop (closed-loop-split.mjs, in a process of its own, with
 *    each of BENCH_ENGINES: raw sockets and autocannon), BENCH_CONNECTIONS (32) connections for BENCH_SECONDS (10) s, against 1 API node and then
 *    2 (the connections split evenly over the nodes' own addresses, no proxy in between),
 *    BENCH_LIST_ROUNDS (3) rounds of each, interleaved.
 *
 * The processes are the real server started from source as apps/server/test/system/multi-node.test.ts
 * starts them (apps/server/test/helpers/server-process.ts: `node --import tsx src/main.ts`), all on one
 * database created for the run and dropped after it. Storage is local: every process gets the same
 * DATA_DIR (and its own TMPDIR), so a worker reads the archive the API node's tus store wrote. The
 * second worker runs throughout and is paused with SIGSTOP in the one-worker rounds, so both are warm
 * in every round (one uncounted round with both warms them). Each ingest upload is by a new account.
 * Per-process CPU is read from /proc/<pid>/stat over each measurement.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { runScript } from './run-script';
import {
  captcha,
  freePort,
  killServers,
  sleep,
  startServer,
  until,
  waitHealthy,
  type ServerProcess,
} from '../../apps/server/test/helpers/server-process';
import { createPostgresDatabase, dropPostgresDatabase } from '../../apps/server/test/helpers/test-database';
import { median } from '../median';
import { seedStudies } from './seed-studies';

const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  console.error('Set DATABASE_URL to a PostgreSQL server (a database is created for the run and dropped).');
  process.exit(2);
}
const SLICES = Number(process.env.BENCH_SLICES ?? 200);
const SIZE = Number(process.env.BENCH_SIZE ?? 512);
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 4);
const INGEST_ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 5);
const STUDIES = Number(process.env.BENCH_STUDIES ?? 2000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LIST_ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 3);
// The list's load generators (closed-loop-split.mjs): raw sockets, and autocannon as closed-loop.mjs.
const ENGINES = (process.env.BENCH_ENGINES ?? 'raw,autocannon').split(',');
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean)); // ingest, list

const password = 'Str0ng!Passw0rd';
const fmtLoad = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const stamp = () => new Date().toISOString().slice(11, 19);

/** User + system CPU seconds of a process so far (Linux /proc). */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

const database = await createPostgresDatabase(adminUrl, { prefix: 'mi_bench' });
const sql = new pg.Client({ connectionString: database.url });
await sql.connect();
const q = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  (await sql.query(text, params)).rows as T[];
const dataDir = tempDir('mi-horizontal-data-');
const env = {
  DATABASE_URL: database.url,
  SESSION_SECRET: randomBytes(32).toString('hex'),
  DATA_DIR: dataDir,
  TRUST_PROXY: 'true',
  LOG_LEVEL: 'warn',
  DEFAULT_MAX_STORAGE_GB: '100',
};

interface Proc {
  name: string;
  server: ServerProcess;
  url: string;
}
const procs: Proc[] = [];

async function startApi(name: string): Promise<Proc> {
  const port = await freePort();
  const server = startServer(
    {
      ...env,
      PORT: String(port),
      VIEWER_PORT: String(await freePort()),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      TMPDIR: tempDir('mi-horizontal-tmp-'),
    },
    { args: ['--no-jobs'] },
  );
  const node = { name, server, url: `http://127.0.0.1:${port}` };
  procs.push(node);
  await waitHealthy(node.url, server);
  return node;
}

async function startWorker(name: string): Promise<Proc> {
  // LOG_LEVEL info for the line that says its job loops are running.
  const server = startServer(
    { ...env, LOG_LEVEL: 'info', TMPDIR: tempDir('mi-horizontal-tmp-') },
    { command: 'worker' },
  );
  const node = { name, server, url: '' };
  procs.push(node);
  await until(
    async () => {
      if (server.child.exitCode !== null) throw new Error(`${name} exited:\n${server.output().slice(-3000)}`);
      return server.output().includes('worker started') ? true : undefined;
    },
    120_000,
    `${name} to start`,
  );
  return node;
}

let registered = 0;
/** A new account through `base`, each from its own address (registration is limited per address). */
async function newUser(base: string): Promise<{ id: string; token: string; auth: Record<string, string> }> {
  registered++;
  const email = `horizontal-${randomUUID()}@example.com`;
  const res = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-forwarded-for': `10.78.${registered >> 8}.${registered & 255}`,
    },
    body: JSON.stringify({
      email,
      password,
      name: 'Horizontal Bench',
      acceptTerms: true,
      captcha: await captcha(base),
    }),
  });
  const body = (await res.json()) as { data?: { id: string; authToken?: string } };
  if (res.status !== 201 || !body.data?.authToken)
    throw new Error(`registration answered ${res.status}: ${JSON.stringify(body)}`);
  const token = body.data.authToken;
  return { id: body.data.id, token, auth: { authorization: `Bearer ${token}` } };
}

interface IngestRound {
  workers: number;
  seconds: number;
  sendSeconds: number;
  cpu: Record<string, number>;
  load: string;
}

async function ingestRound(api: Proc, workers: Proc[], active: number): Promise<IngestRound> {
  const users = await Promise.all(Array.from({ length: UPLOADS }, () => newUser(api.url)));
  const uploads = await Promise.all(
    users.map(async (u) => {
      const res = await fetch(`${api.url}/api/storage/token`, { headers: u.auth });
      const { accessToken } = (await res.json()) as { accessToken: string };
      return { token: accessToken, auth: u.auth, objectName: `${u.id}/${randomUUID()}/study.zip` };
    }),
  );
  const names = uploads.map((u) => u.objectName);
  // Only `active` workers take jobs; the others are paused (their pending polls see an empty queue).
  for (const [i, w] of workers.entries()) w.server.child.kill(i < active ? 'SIGCONT' : 'SIGSTOP');
  await sleep(1500);
  const cpu0 = Object.fromEntries([api, ...workers].map((p) => [p.name, cpuSeconds(p.server.child.pid)]));
  const sent = await runScript<{ start: number; end: number; bytes: number }>('./horizontal-client.ts', {
    base: api.url,
    slices: SLICES,
    size: SIZE,
    uploads,
  });
  type Row = { status: string; finished_at: Date | null; n: string };
  const rows = await until(
    async () => {
      const r = await q<Row>(
        `select u.status, u.finished_at, (select count(*) from instances i where i.study_id = any(u.study_ids)) n
           from study_uploads u where u.object_name = any($1)`,
        [names],
      );
      return r.length === UPLOADS && r.every((x) => x.status === 'completed' || x.status === 'failed')
        ? r
        : undefined;
    },
    600_000,
    'the uploads to be indexed',
    200,
  );
  const cpu = Object.fromEntries(
    [api, ...workers].map((p) => [p.name, cpuSeconds(p.server.child.pid) - cpu0[p.name]!]),
  );
  const indexed = rows.reduce((n, r) => n + Number(r.n), 0);
  if (rows.some((r) => r.status !== 'completed') || indexed !== UPLOADS * SLICES)
    throw new Error(
      `round incomplete: ${rows.map((r) => r.status).join(', ')}, ${indexed} instances indexed`,
    );
  const last = Math.max(...rows.map((r) => r.finished_at!.getTime()));
  return {
    workers: active,
    seconds: (last - sent.start) / 1000,
    sendSeconds: (sent.end - sent.start) / 1000,
    cpu,
    load: fmtLoad(),
  };
}

interface ListLoad {
  requests: number;
  rps: number;
  bytesPerSecond: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  perNode: Array<{ rps: number; p50: number; p99: number }>;
  clientCpuMs: number;
}

const fmtCpu = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ');

try {
  const version = (await q<{ server_version: string }>('show server_version'))[0]!.server_version;
  console.log(
    `${stamp()} UTC: ${cpus().length} cores (${cpus()[0]?.model}); load average ${fmtLoad()}; PostgreSQL ${version}, database ${database.name}; local storage, one DATA_DIR shared by every process`,
  );
  const api1 = await startApi('api 1');

  const ingest: IngestRound[] = [];
  if (!SKIP.has('ingest')) {
    const workers = [await startWorker('worker 1'), await startWorker('worker 2')];
    console.log(
      `\ningest: ${UPLOADS} clients at once, each one CT study of ${SLICES} slices ${SIZE}×${SIZE} (${((SLICES * SIZE * SIZE * 2) / 2 ** 20).toFixed(0)} MiB of pixels), one API node (serve --no-jobs), 1 or 2 worker processes; first byte → last upload indexed`,
    );
    const warm = await ingestRound(api1, workers, 2);
    console.log(
      `${stamp()} warm-up (2 workers, not counted): ${warm.seconds.toFixed(2)} s | CPU s: ${fmtCpu(warm.cpu)} | load ${warm.load}`,
    );
    for (let r = 0; r < INGEST_ROUNDS; r++)
      for (const active of [1, 2]) {
        const round = await ingestRound(api1, workers, active);
        ingest.push(round);
        console.log(
          `${stamp()} round ${r + 1}, ${active} worker${active > 1 ? 's' : ' '}: ${round.seconds.toFixed(2)} s (${((UPLOADS * SLICES) / round.seconds).toFixed(0)} instances/s; clients done sending after ${round.sendSeconds.toFixed(2)} s) | CPU s: ${fmtCpu(round.cpu)} | load ${round.load}`,
        );
      }
    for (const w of workers) {
      w.server.child.kill('SIGCONT');
      w.server.child.kill('SIGTERM');
      await w.server.exited;
    }
  }

  const list: Array<{
    engine: string;
    nodes: number;
    load: ListLoad;
    cpu: Record<string, number>;
    loadavg: string;
  }> = [];
  if (!SKIP.has('list')) {
    const api2 = await startApi('api 2');
    const user = await newUser(api1.url);
    const fill = await seedStudies(sql, user.id, STUDIES);
    const listPath = `/api/studies/user/${user.id}`;
    const headers = { ...user.auth, 'accept-encoding': 'gzip' };
    for (const node of [api1, api2]) {
      const res = await fetch(`${node.url}${listPath}`, { headers: user.auth });
      const n = ((await res.json()) as { data: unknown[] }).data.length;
      if (n !== STUDIES) throw new Error(`${node.name} lists ${n} studies, not ${STUDIES}`);
    }
    // fetch decompresses: the size on the wire is the content-length.
    const gz = await fetch(`${api1.url}${listPath}`, { headers });
    const plain = (await gz.arrayBuffer()).byteLength;
    console.log(
      `\nlist: ${STUDIES} studies (seeded in ${fill.toFixed(1)} s), answer ${(plain / 1024).toFixed(0)} KiB, ${(Number(gz.headers.get('content-length')) / 1024).toFixed(0)} KiB gzipped (${gz.headers.get('content-encoding')}); closed loop, ${CONNECTIONS} connections split over the nodes' addresses, ${SECONDS} s per row`,
    );
    // Warm-up, not counted: JIT and each node's list cache.
    await runScript('./closed-loop-split.mjs', {
      bases: [api1.url, api2.url],
      path: listPath,
      headers,
      connections: CONNECTIONS,
      seconds: 5,
      engine: 'raw',
    });
    for (let r = 0; r < LIST_ROUNDS; r++)
      for (const engine of ENGINES)
        for (const nodes of [1, 2]) {
          // Each answer records an audit event: every row starts with the audit table vacuumed.
          await q('vacuum analyze audit_events');
          const targets = [api1, api2].slice(0, nodes);
          const cpu0 = Object.fromEntries([api1, api2].map((p) => [p.name, cpuSeconds(p.server.child.pid)]));
          const load = await runScript<ListLoad>('./closed-loop-split.mjs', {
            bases: targets.map((t) => t.url),
            path: listPath,
            headers,
            connections: CONNECTIONS,
            seconds: SECONDS,
            engine,
          });
          const cpu = Object.fromEntries(
            [api1, api2].map((p) => [p.name, cpuSeconds(p.server.child.pid) - cpu0[p.name]!]),
          );
          cpu.client = load.clientCpuMs / 1000;
          list.push({ engine, nodes, load, cpu, loadavg: fmtLoad() });
          console.log(
            `${stamp()} round ${r + 1}, ${engine.padEnd(10)} ${nodes} node${nodes > 1 ? 's' : ' '}: ${load.rps.toFixed(0)} requests/s, ${(load.bytesPerSecond / 2 ** 20).toFixed(0)} MiB/s (${load.perNode.map((p) => `${p.rps.toFixed(0)}/s p50 ${p.p50} ms p99 ${p.p99} ms`).join('; ')}) non-2xx ${load.non2xx}, errors ${load.errors} | CPU s: ${fmtCpu(cpu)} | load ${fmtLoad()}`,
          );
          if (load.non2xx > 0 || load.errors > 0) throw new Error('the list answered errors');
        }
  }

  console.log(`\n${stamp()} UTC: ${cpus().length} cores; load average ${fmtLoad()}`);
  if (ingest.length > 0) {
    const secs = (n: number) => ingest.filter((r) => r.workers === n).map((r) => r.seconds);
    const one = median(secs(1));
    const two = median(secs(2));
    console.log(
      `ingest, ${UPLOADS} × ${SLICES} slices: 1 worker ${one.toFixed(2)} s (rounds ${secs(1)
        .map((s) => s.toFixed(2))
        .join(', ')}), 2 workers ${two.toFixed(2)} s (rounds ${secs(2)
        .map((s) => s.toFixed(2))
        .join(', ')}); throughput 2 workers / 1 worker = ${(one / two).toFixed(2)}`,
    );
    // After the last process call was answered: queueing and indexing only.
    const tail = (n: number) =>
      median(ingest.filter((r) => r.workers === n).map((r) => r.seconds - r.sendSeconds));
    console.log(
      `  of which after the last process call was answered (median): 1 worker ${tail(1).toFixed(2)} s, 2 workers ${tail(2).toFixed(2)} s`,
    );
  }
  for (const engine of list.length > 0 ? ENGINES : []) {
    const rps = (n: number) =>
      list.filter((r) => r.nodes === n && r.engine === engine).map((r) => r.load.rps);
    const one = median(rps(1));
    const two = median(rps(2));
    console.log(
      `list, ${STUDIES} studies gzipped, ${engine} client: 1 node ${one.toFixed(0)}/s (rounds ${rps(1)
        .map((s) => s.toFixed(0))
        .join(', ')}), 2 nodes ${two.toFixed(0)}/s (rounds ${rps(2)
        .map((s) => s.toFixed(0))
        .join(', ')}); throughput 2 nodes / 1 node = ${(two / one).toFixed(2)}`,
    );
  }
} catch (err) {
  for (const p of procs)
    console.error(`${p.name} output (last 2000 characters):\n${p.server.output().slice(-2000)}`);
  throw err;
} finally {
  for (const p of procs) p.server.child.kill('SIGCONT');
  killServers();
  await Promise.all(procs.map((p) => p.server.exited));
  await sql.end();
  await dropPostgresDatabase(adminUrl, database.name);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
