/**
 * Study list benchmark: one user with 1,000 own studies and 1,000 studies another user shares with
 * them, on PostgreSQL, 50 concurrent clients (autocannon) on GET /api/studies/user/:id (My Studies)
 * and GET /api/users/shares/targetUser/:id (Shared Studies) next to a trivial route of the same server.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/study-list/run.ts
 *
 * BENCH_SECONDS (15) per row, BENCH_CLIENT_THREADS (2) load-generator threads, BENCH_WORKERS (see below).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { eq, sql } from 'drizzle-orm';
import { studies, studyShares, users } from '../../apps/server/src/db/schema/index';
import { createTestContext, registerPatient } from '../../apps/server/test/helpers/test-app';

const STUDIES = 1000;
const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 15);
// The load generator runs in a separate process (load.mjs) with BENCH_CLIENT_THREADS worker threads
// (default 2; the 50 connections are shared among them): autocannon spends several times more CPU
// receiving an answer than the server spends sending it, and a saturated client measures its own
// queue. BENCH_WORKERS=N runs it in N worker threads of the server's process instead (the setup of
// earlier figures).
const WORKERS = Number(process.env.BENCH_WORKERS ?? 0);
const CLIENT_THREADS = Number(process.env.BENCH_CLIENT_THREADS ?? 2);
// BENCH_CLIENT_CPUS=1 runs the load generators on those CPUs only (taskset); start the bench itself
// under `taskset -c 0` so the server and its load never take each other's core.
const CLIENT_CPUS = process.env.BENCH_CLIENT_CPUS;
// BENCH_CLIENT=autocannon or wrk runs only that load generator (both by default, wrk when installed).
const CLIENT = process.env.BENCH_CLIENT ?? 'both';
const execFileAsync = promisify(execFile);
/** A load generator's command, under taskset when BENCH_CLIENT_CPUS pins it. */
const pinned = (command: string, args: string[]): [string, string[]] =>
  CLIENT_CPUS ? ['taskset', ['-c', CLIENT_CPUS, command, ...args]] : [command, args];
const loadScript = fileURLToPath(new URL('./load.mjs', import.meta.url));

function autocannonInChildProcess(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const args = [
      loadScript,
      JSON.stringify(CLIENT_THREADS > 1 ? { ...opts, workers: CLIENT_THREADS } : opts),
    ];
    execFile(...pinned(process.execPath, args), { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout) as autocannon.Result),
    );
  });
}

if (!process.env.DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL server (a fresh database is created and dropped).');
  process.exit(2);
}
const ctx = await createTestContext({ LOG_LEVEL: 'silent' });
try {
  const reg = await registerPatient(ctx, 'bench-list@example.com');
  const token = reg.json().data.authToken as string;
  const me = await ctx.app.inject({
    method: 'GET',
    url: '/api/auth/me',
    headers: { authorization: `Bearer ${token}` },
  });
  const userId = me.json().id as string;
  const rows = Array.from({ length: STUDIES }, (_, i) => ({
    ownerId: userId,
    studyInstanceUid: `2.25.${1000000 + i}`,
    patientName: `Patient^Number${i}`,
    patientId: `PID${i}`,
    studyDate: `20${String(10 + (i % 15)).padStart(2, '0')}-0${1 + (i % 9)}-1${i % 10}`,
    studyDescription: `CT chest with contrast ${i}`,
    institutionName: 'General Hospital',
    modalities: i % 3 === 0 ? ['CT'] : i % 3 === 1 ? ['MR'] : ['CR', 'SR'],
    seriesCount: 3,
    instanceCount: 300,
    sizeBytes: 157_286_400,
    createdAt: new Date(Date.now() - i * 60_000),
  }));
  for (let i = 0; i < rows.length; i += 250)
    await ctx.services.database.db.insert(studies).values(rows.slice(i, i + 250));
  // Another user shares 1,000 studies of theirs with the bench user (Shared Studies tab).
  const sharer = await registerPatient(ctx, 'bench-sharer@example.com');
  const sharerId = sharer.json().data.id as string;
  const db = ctx.services.database.db;
  await db.update(users).set({ shareMedicalData: true }).where(eq(users.id, sharerId));
  for (let i = 0; i < STUDIES; i += 250) {
    const batch = rows
      .slice(i, i + 250)
      .map((r) => ({ ...r, ownerId: sharerId, studyInstanceUid: `${r.studyInstanceUid}.9` }));
    const inserted = await db.insert(studies).values(batch).returning({ id: studies.id });
    await db.insert(studyShares).values(
      inserted.map((s, j) => ({
        studyId: s.id,
        ownerId: sharerId,
        email: 'bench-list@example.com',
        emailNormalized: 'bench-list@example.com',
        targetUserId: userId,
        createdAt: new Date(Date.now() - (i + j) * 60_000),
      })),
    );
  }
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = ctx.app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const check = await fetch(`${base}/api/studies/user/${userId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await check.json()) as { data: unknown[] };
  if (body.data.length !== STUDIES) throw new Error(`expected ${STUDIES} studies, got ${body.data.length}`);

  const sharedPath = `/api/users/shares/targetUser/${userId}`;
  const sharedRes = await fetch(`${base}${sharedPath}`, { headers: { authorization: `Bearer ${token}` } });
  const sharedEtag = sharedRes.headers.get('etag') ?? '';
  const sharedCheck = (await sharedRes.json()) as { data: unknown[] };
  if (sharedCheck.data.length !== STUDIES)
    throw new Error(`expected ${STUDIES} shared studies, got ${sharedCheck.data.length}`);
  const etag = check.headers.get('etag') ?? '';
  const cannon = (opts: autocannon.Options) =>
    WORKERS > 0
      ? new Promise<autocannon.Result>((resolve, reject) => {
          autocannon({ ...opts, workers: WORKERS }, (err, res) => (err ? reject(err) : resolve(res)));
        })
      : autocannonInChildProcess(opts);
  // Server CPU time (this process: event loop, zlib and libuv threads) per answer, which the
  // machine's other load hardly moves, unlike latencies.
  const cpuPerRequest = new Map<string, number>();
  // Every answer writes an audit row (tens of thousands a row of this bench): each row starts with
  // the audit table vacuumed, so that it does not pay autovacuum for the rows the previous one wrote.
  const settleAudit = () => db.execute(sql`vacuum analyze audit_events`);
  const run = async (title: string, path: string, extra: Record<string, string> = {}) => {
    await settleAudit();
    const cpu = process.cpuUsage();
    const res = await cannon({
      title,
      url: `${base}${path}`,
      connections: CONNECTIONS,
      duration: DURATION_S,
      headers: { authorization: `Bearer ${token}`, ...extra },
    });
    const used = process.cpuUsage(cpu);
    cpuPerRequest.set(title, (used.user + used.system) / 1000 / Math.max(1, res.requests.total));
    return res;
  };
  const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  if (CLIENT !== 'wrk') {
    const loadBefore = loadavg();
    // Warm up once (JIT, connection pool), then measure.
    await cannon({
      url: `${base}/api/studies/user/${userId}`,
      connections: 10,
      duration: 3,
      headers: { authorization: `Bearer ${token}` },
    });
    const list = await run('study list', `/api/studies/user/${userId}`);
    // What a browser sends: Accept-Encoding, and If-None-Match once it holds the list.
    const browser = await run('study list, gzip accepted', `/api/studies/user/${userId}`, {
      'accept-encoding': 'gzip, deflate, br',
    });
    // What a browser sends once it holds the list: If-None-Match, answered 304 while nothing changed.
    const revalidate = await run('study list, revalidated', `/api/studies/user/${userId}`, {
      'if-none-match': etag,
    });
    const shared = await run('shared list, gzip accepted', sharedPath, {
      'accept-encoding': 'gzip, deflate, br',
    });
    const sharedRevalidate = await run('shared list, revalidated', sharedPath, {
      'if-none-match': sharedEtag,
    });
    const trivial = await run('trivial', '/api/config');
    const row = (name: string, r: autocannon.Result) =>
      `${name.padEnd(28)} p50 ${String(r.latency.p50).padStart(6)} ms   p99 ${String(r.latency.p99).padStart(6)} ms   ${r.requests.average.toFixed(0).padStart(7)} req/s   ${(r.throughput.average / 1024 / 1024).toFixed(0).padStart(5)} MiB/s   server CPU ${WORKERS > 0 ? '  n/a' : (cpuPerRequest.get(r.title ?? '') ?? 0).toFixed(3)} ms/req   2xx ${r['2xx']} 3xx ${r['3xx']}   errors ${r.errors + r.non2xx - r['3xx']}`;
    console.log(
      `\n${STUDIES} studies, ${CONNECTIONS} connections, ${DURATION_S} s each, PostgreSQL, response ${(JSON.stringify(body).length / 1024).toFixed(0)} KiB, client ${WORKERS > 0 ? `in ${WORKERS} worker thread(s) of the server's process` : `in a separate process, ${CLIENT_THREADS} thread(s)`}`,
    );
    console.log(`load average (1/5/15 min): before ${fmtLoad(loadBefore)}, after ${fmtLoad(loadavg())}`);
    console.log(row(`GET /api/studies/user/:id`, list));
    console.log(row('  same, Accept-Encoding gzip', browser));
    console.log(row('  same, If-None-Match (304)', revalidate));
    console.log(row('GET /api/users/shares/targetUser/:id, gzip', shared));
    console.log(row('  same, If-None-Match (304)', sharedRevalidate));
    console.log(row('GET /api/config (trivial)', trivial));
    console.log(
      `ratio list/trivial: p99 ${(list.latency.p99 / Math.max(1, trivial.latency.p99)).toFixed(1)}x, req/s ${(list.requests.average / trivial.requests.average).toFixed(2)}`,
    );
    const verdict = (r: autocannon.Result) =>
      `${r.latency.p99 <= 50 ? 'met' : 'NOT met'} (${r.latency.p99} ms)`;
    console.log(
      `target p99 <= 50 ms: plain ${verdict(list)}, gzip ${verdict(browser)}, If-None-Match ${verdict(revalidate)}, shared ${verdict(shared)}, shared If-None-Match ${verdict(sharedRevalidate)}`,
    );
  }
  // Cross-check with wrk (C, from Debian's `wrk` package) when installed: it spends far less CPU per
  // answer than autocannon, so on two shared cores its figures are closer to the server's own latency.
  if (CLIENT !== 'autocannon' && existsSync('/usr/bin/wrk')) {
    const wrkVerdicts: string[] = [];
    const wrk = async (name: string, path: string, extra: string[] = []) => {
      await settleAudit();
      const wrkArgs = [
        '-t2',
        `-c${CONNECTIONS}`,
        `-d${DURATION_S}s`,
        '--latency',
        '-H',
        `authorization: Bearer ${token}`,
        ...extra.flatMap((h) => ['-H', h]),
        `${base}${path}`,
      ];
      const { stdout } = await execFileAsync(...pinned('/usr/bin/wrk', wrkArgs));
      const pct = (p: string) => {
        const m = new RegExp(`^\\s*${p}%\\s+([0-9.]+)(us|ms|s)`, 'm').exec(stdout);
        if (!m) return NaN;
        const v = Number(m[1]);
        return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
      };
      const rps = Number(/Requests\/sec:\s+([0-9.]+)/.exec(stdout)?.[1] ?? NaN);
      wrkVerdicts.push(`${name.trim()} ${pct('99') <= 50 ? 'met' : 'NOT met'} (${pct('99').toFixed(1)} ms)`);
      console.log(
        `wrk ${name.padEnd(24)} p50 ${pct('50').toFixed(1).padStart(6)} ms   p99 ${pct('99').toFixed(1).padStart(6)} ms   ${rps.toFixed(0).padStart(7)} req/s`,
      );
    };
    if (CLIENT === 'wrk')
      // Warm up once (JIT, connection pool), as the autocannon rows do.
      await execFileAsync(
        ...pinned('/usr/bin/wrk', [
          '-c10',
          '-d3s',
          '-H',
          `authorization: Bearer ${token}`,
          `${base}/api/studies/user/${userId}`,
        ]),
      );
    console.log(`load average before wrk: ${fmtLoad(loadavg())}`);
    await wrk('GET /api/studies/user/:id', `/api/studies/user/${userId}`);
    await wrk('  same, gzip', `/api/studies/user/${userId}`, ['accept-encoding: gzip, deflate, br']);
    await wrk('  same, If-None-Match', `/api/studies/user/${userId}`, [`if-none-match: ${etag}`]);
    await wrk('GET /api/users/shares/targetUser/:id, gzip', sharedPath, [
      'accept-encoding: gzip, deflate, br',
    ]);
    await wrk('  same, If-None-Match', sharedPath, [`if-none-match: ${sharedEtag}`]);
    await wrk('GET /api/config', '/api/config');
    console.log(`wrk target p99 <= 50 ms: ${wrkVerdicts.slice(0, -1).join(', ')}`);
  }
} finally {
  await ctx.close();
}
