/**
 * A user with 10,000 studies, on PostgreSQL: `GET /api/studies/user/:id` (My Studies; the whole list
 * in one answer, newest upload first, no paging) at a fixed offered rate, open loop, next to the
 * trivial `GET /api/health` at the same rate.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/scale/study-list.ts
 *
 * BENCH_STUDIES (10000), BENCH_RATE (200 requests/s), BENCH_SECONDS (20) per row.
 *
 * The studies (each with one series of 3 instances) are bulk-inserted with SQL into the real tables
 * of the migrated schema, then `vacuum analyze` (seed-studies.ts). The server is the tests' app
 * (createTestContext) in this process, on a database created for the run and dropped after it;
 * the load generator (open-loop.mjs) runs in a process of its own and sends on schedule whatever
 * the answers do, measuring each latency from the request's scheduled send time. Server CPU per
 * answer is `process.cpuUsage()` of this process (event loop, zlib and libuv threads) over the row,
 * divided by the answers.
 *
 * On a machine with two cores or more, the load generator runs on the last core and this process
 * (the server: event loop, zlib and libuv threads) on the others (taskset), so neither measures the
 * other's CPU. PostgreSQL's processes are left free: the list is served from memory.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { createTestContext, registerPatient } from '../../apps/server/test/helpers/test-app';
import { percentile } from '../median';
import { runScript } from './run-script';
import { seedStudies } from './seed-studies';

if (!process.env.DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL server (a database is created for the run and dropped).');
  process.exit(2);
}
const STUDIES = Number(process.env.BENCH_STUDIES ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);

interface Load {
  requests: number;
  answered: number;
  errors: number;
  statuses: Record<string, number>;
  bytes: number;
  sockets: number;
  elapsedMs: number;
  maxSendLagMs: number;
  latency: { p50: number; p90: number; p99: number; p999: number; max: number };
  service: { p50: number; p99: number };
  clientCpuMs: number;
}
// The load generator on a core of its own; the server (this process, every thread) on the rest.
const CORES = cpus().length;
const GENERATOR_CORE = CORES >= 2 ? String(CORES - 1) : undefined;
const SERVER_CORES = CORES >= 2 ? (CORES === 2 ? '0' : `0-${CORES - 2}`) : undefined;
if (SERVER_CORES)
  execFileSync('taskset', ['-a', '-p', '-c', SERVER_CORES, String(process.pid)], { stdio: 'ignore' });
const openLoop = (job: Record<string, unknown>) =>
  runScript<Load>('./open-loop.mjs', job, GENERATOR_CORE ? { cores: GENERATOR_CORE } : {});

const ctx = await createTestContext({ LOG_LEVEL: 'silent' });
const sqlClient = new pg.Client({ connectionString: ctx.services.config.databaseUrl });
await sqlClient.connect();
const fmtLoad = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
try {
  const reg = await registerPatient(ctx, 'scale-list@example.com');
  const token = reg.json().data.authToken as string;
  const me = await ctx.app.inject({
    method: 'GET',
    url: '/api/auth/me',
    headers: { authorization: `Bearer ${token}` },
  });
  const userId = me.json().id as string;
  const fillSeconds = await seedStudies(sqlClient, userId, STUDIES);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  // Server time: from the request's arrival to the last byte of its answer handed to the socket.
  let serverTimes: number[] = [];
  ctx.app.server.prependListener('request', (_req: unknown, res: import('node:http').ServerResponse) => {
    const arrived = performance.now();
    res.once('finish', () => serverTimes.push(performance.now() - arrived));
  });
  const addr = ctx.app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const listPath = `/api/studies/user/${userId}`;
  const auth = { authorization: `Bearer ${token}` };
  const check = await fetch(`${base}${listPath}`, { headers: auth });
  const etag = check.headers.get('etag') ?? '';
  const body = Buffer.from(await check.arrayBuffer());
  const count = (JSON.parse(body.toString()) as { data: unknown[] }).data.length;
  if (count !== STUDIES) throw new Error(`expected ${STUDIES} studies, got ${count}`);
  const gz = await fetch(`${base}${listPath}`, { headers: { ...auth, 'accept-encoding': 'gzip' } });
  const gzBytes = Number(gz.headers.get('content-length') ?? (await gz.arrayBuffer()).byteLength);

  console.log(
    `PostgreSQL, database ${ctx.services.config.databaseUrl?.split('/').pop()}; ${cpus().length} cores (${cpus()[0]?.model}); server on core(s) ${SERVER_CORES ?? 'any'}, load generator on core ${GENERATOR_CORE ?? 'any'}; ${STUDIES} studies filled in ${fillSeconds.toFixed(1)} s; answer ${(body.length / 1024).toFixed(0)} KiB (${(gzBytes / 1024).toFixed(0)} KiB gzip)`,
  );
  console.log(
    `offered ${RATE} requests/s for ${SECONDS} s per row, open loop; latency from the scheduled send time`,
  );
  const rows: Array<{ name: string; load: Load; cpuMs: number; server: { p50: number; p99: number } }> = [];
  const row = async (name: string, path: string, headers: Record<string, string>) => {
    // Each answer writes an audit row: start every row with the audit table vacuumed.
    await sqlClient.query('vacuum analyze audit_events');
    serverTimes = [];
    const cpu0 = process.cpuUsage();
    const load = await openLoop({ url: `${base}${path}`, headers, rate: RATE, seconds: SECONDS });
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000 / Math.max(1, load.answered);
    const systemMs = cpu.system / 1000 / Math.max(1, load.answered);
    const server = { p50: percentile(serverTimes, 50), p99: percentile(serverTimes, 99) };
    rows.push({ name, load, cpuMs, server });
    const l = load.latency;
    console.log(
      `${name.padEnd(36)} server time p50 ${server.p50.toFixed(1)} / p99 ${server.p99.toFixed(1)} ms | at the client p50 ${l.p50.toFixed(1).padStart(6)} ms  p90 ${l.p90.toFixed(1).padStart(6)}  p99 ${l.p99.toFixed(1).padStart(6)}  p99.9 ${l.p999.toFixed(1).padStart(6)}  max ${l.max.toFixed(1).padStart(6)} | answered ${load.answered}/${load.requests} ${JSON.stringify(load.statuses)} errors ${load.errors} in ${(load.elapsedMs / 1000).toFixed(1)} s, from the actual send p50 ${load.service.p50.toFixed(1)} / p99 ${load.service.p99.toFixed(1)} ms, ${load.sockets} connections, send lag max ${load.maxSendLagMs.toFixed(1)} ms | server CPU ${cpuMs.toFixed(3)} ms/answer (${((cpuMs * RATE) / 10).toFixed(0)} % of a core; in the kernel ${systemMs.toFixed(3)} ms) | client CPU ${(load.clientCpuMs / load.answered).toFixed(3)} ms/answer | load ${fmtLoad()}`,
    );
    return { load, cpuMs, server };
  };
  // Warm-up, not counted (JIT, connection pool, the list cache).
  await openLoop({
    url: `${base}${listPath}`,
    headers: { ...auth, 'accept-encoding': 'gzip, deflate, br' },
    rate: RATE,
    seconds: 3,
  });
  await openLoop({ url: `${base}${listPath}`, headers: auth, rate: RATE, seconds: 2 });
  await openLoop({ url: `${base}/api/health`, headers: {}, rate: RATE, seconds: 2 });
  // What the server process spends with no request at all (job workers polling, timers), per second.
  const idle0 = process.cpuUsage();
  const idleT = performance.now();
  await new Promise((r) => setTimeout(r, 5000));
  const idleCpu = process.cpuUsage(idle0);
  const idleMsPerS = (idleCpu.user + idleCpu.system) / 1000 / ((performance.now() - idleT) / 1000);
  console.log(
    `server CPU while idle: ${idleMsPerS.toFixed(1)} ms/s (= ${(idleMsPerS / RATE).toFixed(3)} ms per answer at ${RATE}/s, included below)`,
  );
  const health = await row('GET /api/health', '/api/health', {});
  const config = await row('GET /api/config (trivial, authed)', '/api/config', auth);
  const browser = await row('list, Accept-Encoding (as browsers)', listPath, {
    ...auth,
    'accept-encoding': 'gzip, deflate, br',
  });
  const revalidate = await row('list, If-None-Match (304)', listPath, { ...auth, 'if-none-match': etag });
  const plain = await row('list, plain (no Accept-Encoding)', listPath, auth);
  // What an API client that takes no gzip can ask for instead: a page (http/serialized-list.ts).
  const paged = await row('list, plain, a page of 100', `${listPath}?offset=5000&limit=100`, auth);
  const config2 = await row('GET /api/config again', '/api/config', auth);
  const health2 = await row('GET /api/health again', '/api/health', {});
  const healthCpu = (health.cpuMs + health2.cpuMs) / 2;
  const configCpu = (config.cpuMs + config2.cpuMs) / 2;
  console.log(
    `\ntargets: server time p99 < 50 ms (and at the client); server CPU per answer within 2× of /api/health (${healthCpu.toFixed(3)} ms; it writes and fsyncs a probe file and asks the database twice), and, stricter, of /api/config (${configCpu.toFixed(3)} ms):`,
  );
  for (const [name, r] of [
    ['gzip (browser)', browser],
    ['If-None-Match', revalidate],
    ['plain', plain],
    ['plain, 100', paged],
  ] as const)
    console.log(
      `  ${name.padEnd(16)} server time p99 ${r.server.p99.toFixed(1)} ms: ${r.server.p99 < 50 && r.load.errors === 0 ? 'met' : 'NOT met'} | at the client p99 ${r.load.latency.p99.toFixed(1)} ms: ${r.load.latency.p99 < 50 && r.load.errors === 0 ? 'met' : 'NOT met'} | CPU ${(r.cpuMs / healthCpu).toFixed(2)}× /api/health: ${r.cpuMs <= 2 * healthCpu ? 'met' : 'NOT met'} | ${(r.cpuMs / configCpu).toFixed(2)}× /api/config: ${r.cpuMs <= 2 * configCpu ? 'met' : 'NOT met'}`,
    );
} finally {
  await sqlClient.end();
  await ctx.close();
}
