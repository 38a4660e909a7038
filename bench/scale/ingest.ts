/**
 * Ingest at scale, on PostgreSQL: the rate (instances/s) of a fixed batch sent by 5 clients when
 * 5,000, 50,000 and 200,000 instances are already stored, in one run and one database.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/scale/ingest.ts
 *
 * BENCH_LEVELS (5000,50000,200000) instances stored before each batch; BENCH_ROUNDS (5) batches at
 * each level; BENCH_UPLOADS (20) uploads of BENCH_PER_UPLOAD (100) instances of 2×2 pixels each per
 * batch, sent by BENCH_CLIENTS (5); BENCH_SENDER=new (each upload by a new account) or owner (all by
 * one account that already holds a tenth of the filler); BENCH_EXPLAIN=1 prints the plan of the
 * ingest's lookup of stored instances at the last level.
 *
 * The app has no STOW-RS or DIMSE receiver: a sender uses the upload page's path, a store-mode ZIP
 * of a study through tus then `POST /api/studies/process`, which queues the `process-study` job.
 * Each client (ingest-client.ts, all in one process of their own) takes the next upload, sends it
 * and asks for processing, as a user with the upload page would, study after study. The time runs
 * from the first byte sent to the latest `finished_at` of the batch's uploads, which the indexing
 * transaction sets just before it commits, so it includes the jobs' queueing and processing.
 *
 * The filler is bulk-inserted with SQL into the real tables (the migrated schema, its indexes,
 * constraints and triggers): studies of 100 instances in one series, spread over 10 owners, with
 * their upload rows; then `vacuum analyze` (as autovacuum would have done on a database that grew
 * to that size), a checkpoint and a pause. The server is the app of the tests (createTestContext) in
 * this process, on a database created for the run and dropped after it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { tuneHeapForUploads } from '../../apps/server/src/heap-tuning';
import { runWithServerFlags } from '../server-flags';
import { listen, storageToken, type Patient } from '../../apps/server/test/helpers/studies';
import { median } from '../median';
import { createTestContext, registerUser, type TestContext } from '../../apps/server/test/helpers/test-app';

if (!process.env.DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL server (a database is created for the run and dropped).');
  process.exit(2);
}
const LEVELS = (process.env.BENCH_LEVELS ?? '5000,50000,200000').split(',').map(Number);
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 20);
const PER_UPLOAD = Number(process.env.BENCH_PER_UPLOAD ?? 100);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 3000);
const FILLER_OWNERS = 10;
// BENCH_SENDER=new: every upload by a new patient account (holding nothing yet); =owner: all by one
// account that already holds a tenth of the filler (one of the 10 filler owners), as one clinic's
// or one patient's sender would.
const SENDER = process.env.BENCH_SENDER ?? 'new';
const FILLER_STUDY = 100; // instances per filler study
const ORTHANC_PG = 250; // instances/s, the Orthanc book's PostgreSQL figure (2×2 pixels, 5 clients)

function client(job: Record<string, unknown>): Promise<{ start: number; end: number; bytes: number }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(new URL('./ingest-client.ts', import.meta.url)),
      JSON.stringify(job),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited with ${code}`)),
    );
  });
}

let registered = 0;
/** A new patient account; each from its own address, as distinct users sign up (registration is rate-limited per address). */
async function newPatient(c: TestContext, email: string): Promise<Patient> {
  registered++;
  const res = await registerUser(c, email, { remoteAddress: `10.77.${registered >> 8}.${registered & 255}` });
  const token = res.json().data?.authToken as string | undefined;
  if (!token) throw new Error(`registration answered ${res.statusCode}: ${res.body}`);
  const me = await c.app.inject({
    method: 'GET',
    url: '/api/auth/me',
    headers: { authorization: `Bearer ${token}` },
  });
  return { id: me.json().id as string, token, auth: { authorization: `Bearer ${token}` } };
}

runWithServerFlags();
tuneHeapForUploads();
const ctx = await createTestContext({ LOG_LEVEL: 'silent', DEFAULT_MAX_STORAGE_GB: '100' });
const sqlClient = new pg.Client({ connectionString: ctx.services.config.databaseUrl });
await sqlClient.connect();
const q = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  (await sqlClient.query(text, params)).rows as T[];
const storedInstances = async () =>
  Number((await q<{ n: string }>('select count(*) n from instances'))[0]!.n);

let fillerStudies = 0;
/** Bulk-inserts filler studies (100 instances each) until `target` instances are stored. */
async function fillTo(target: number, owners: string[]): Promise<number> {
  const t0 = Date.now();
  let missing = target - (await storedInstances());
  while (missing > 0) {
    const studiesNow = Math.min(100, Math.ceil(missing / FILLER_STUDY));
    const from = fillerStudies;
    fillerStudies += studiesNow;
    // One statement per 100 studies: studies, their upload rows, series and instances.
    await q(
      `with s as (
         insert into studies (owner_id, study_instance_uid, patient_name, patient_id, study_date, study_description,
                              institution_name, modalities, series_count, instance_count, size_bytes, created_at, updated_at)
         select ($1::uuid[])[1 + g % array_length($1::uuid[], 1)], '1.2.826.0.1.3680043.10.999.' || g,
                'Filler^Patient' || g, 'FPID' || g, date '2015-01-01' + (g % 3000), 'Filler study ' || g,
                'General Hospital', '{CT}', 1, $4, $4 * 700, now() - g * interval '1 minute', now()
         from generate_series($2::int, $3::int) g
         returning id, owner_id, study_instance_uid),
       u as (
         insert into study_uploads (owner_id, object_name, status, size_bytes, study_ids, finished_at, uploaded_by)
         select owner_id, owner_id || '/' || id || '/study.zip', 'completed', $4 * 800, array[id], now(), owner_id from s
         returning id, study_ids[1] as study_id),
       se as (
         insert into series (study_id, series_instance_uid, modality, series_number, instance_count)
         select id, study_instance_uid || '.1', 'CT', 1, $4 from s
         returning id, study_id, series_instance_uid)
       insert into instances (study_id, series_id, sop_instance_uid, sop_class_uid, instance_number, transfer_syntax_uid,
                              size_bytes, crc32, storage_key, storage_offset)
       select se.study_id, se.id, se.series_instance_uid || '.' || i, '1.2.840.10008.5.1.4.1.1.2', i,
              '1.2.840.10008.1.2.1', 700, (hashtext(se.series_instance_uid || i)::bigint & 4294967295),
              'dicom/' || u.id || '/archive.zip', i * 800
       from se join u on u.study_id = se.study_id, generate_series(1, $4::int) i`,
      [owners, from, from + studiesNow - 1, FILLER_STUDY],
    );
    missing = target - (await storedInstances());
  }
  await q('vacuum analyze studies, series, instances, study_uploads, upload_objects');
  // The filler's WAL written out now, not by a checkpoint during the batch; then a quiet disk.
  await q('checkpoint');
  execFileSync('sync');
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return (Date.now() - t0) / 1000;
}

interface Batch {
  level: number;
  seconds: number;
  rate: number;
  sendSeconds: number;
  serverCpu: number;
  stages: Record<string, number>;
}

/** One batch: UPLOADS uploads from CLIENTS clients, timed from the first byte to the last commit. */
async function batch(base: string, level: number, sender: Patient | null): Promise<Batch> {
  // New patients (so no upload finds another's instances), registered five at a time before the clock starts.
  const patients: Patient[] = [];
  if (sender) for (let i = 0; i < UPLOADS; i++) patients.push(sender);
  else
    for (let i = 0; i < UPLOADS; i += 5)
      patients.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(5, UPLOADS - i) }, () =>
            newPatient(ctx, `scale-${randomUUID()}@example.com`),
          ),
        )),
      );
  const uploads = await Promise.all(
    patients.map(async (p) => ({
      token: await storageToken(ctx, p),
      auth: p.auth,
      objectName: `${p.id}/${randomUUID()}/study.zip`,
    })),
  );
  const names = uploads.map((u) => u.objectName);
  const cpu0 = process.cpuUsage();
  const sent = await client({ base, clients: CLIENTS, perUpload: PER_UPLOAD, rows: 2, columns: 2, uploads });
  // Done when every upload's row is final (a 100 ms poll, one indexed query); the end is the latest
  // `finished_at`, which the indexing transaction sets (server clock, this process) just before it commits.
  type Row = {
    status: string;
    summary: { stages?: Record<string, number> } | null;
    finished_at: Date | null;
    n: string;
  };
  let rows: Row[] = [];
  const deadline = Date.now() + 120_000;
  for (;;) {
    rows = await q<Row>(
      `select u.status, u.summary, u.finished_at,
              (select count(*) from instances i where i.study_id = any(u.study_ids)) n
         from study_uploads u where u.object_name = any($1)`,
      [names],
    );
    if (rows.length === UPLOADS && rows.every((r) => r.status === 'completed' || r.status === 'failed'))
      break;
    if (Date.now() > deadline) throw new Error('batch not finished in 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const cpu = process.cpuUsage(cpu0);
  const last = Math.max(...rows.map((r) => r.finished_at!.getTime()));
  const seconds = (last - sent.start) / 1000;
  // Every upload completed, with all its instances indexed.
  const indexed = rows.reduce((n, r) => n + Number(r.n), 0);
  if (
    rows.length !== UPLOADS ||
    rows.some((r) => r.status !== 'completed') ||
    indexed !== UPLOADS * PER_UPLOAD
  )
    throw new Error(`batch incomplete: ${rows.length} uploads, ${indexed} instances indexed`);
  const stages: Record<string, number> = {};
  for (const r of rows)
    for (const [k, v] of Object.entries(r.summary?.stages ?? {})) stages[k] = (stages[k] ?? 0) + v / 1000;
  return {
    level,
    seconds,
    rate: (UPLOADS * PER_UPLOAD) / seconds,
    sendSeconds: (sent.end - sent.start) / 1000,
    serverCpu: (cpu.user + cpu.system) / 1e6,
    stages,
  };
}

const fmtLoad = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const results: Batch[] = [];
try {
  const base = await listen(ctx);
  const ownerPatients: Patient[] = [];
  for (let i = 0; i < FILLER_OWNERS; i++)
    ownerPatients.push(await newPatient(ctx, `scale-filler-${i}@example.com`));
  const owners = ownerPatients.map((p) => p.id);
  const sender = SENDER === 'owner' ? ownerPatients[0]! : null;
  console.log(
    `PostgreSQL ${(await q<{ server_version: string }>('show server_version'))[0]!.server_version}, database ${ctx.services.config.databaseUrl?.split('/').pop()}; ${cpus().length} cores (${cpus()[0]?.model}); load average ${fmtLoad()}`,
  );
  console.log(
    `batch: ${UPLOADS} uploads × ${PER_UPLOAD} instances of 2×2 pixels (${UPLOADS * PER_UPLOAD} instances) from ${CLIENTS} clients, tus + POST /api/studies/process; sender: ${SENDER === 'owner' ? 'one account holding a tenth of the filler' : 'a new account per upload'}`,
  );
  // Warm-up, not counted: the first request through each code path compiles it.
  await batch(base, -1, sender);
  const perLevel: Array<{ level: number; rate: number; rates: number[] }> = [];
  for (const level of LEVELS) {
    const fill = await fillTo(level, owners);
    const rates: number[] = [];
    // BENCH_ROUNDS batches in a row; each adds its 2,000 instances to what is stored.
    for (let r = 0; r < ROUNDS; r++) {
      if (r > 0) {
        execFileSync('sync');
        await new Promise((res) => setTimeout(res, SETTLE_MS));
      }
      const stored = await storedInstances();
      const b = await batch(base, stored, sender);
      results.push(b);
      rates.push(b.rate);
      const st = Object.entries(b.stages)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ');
      console.log(
        `${String(stored).padStart(7)} stored${r === 0 ? ` (filled in ${fill.toFixed(1)} s)` : ''}: ${b.rate.toFixed(0)} instances/s (${b.seconds.toFixed(2)} s first byte → last commit; clients done sending after ${b.sendSeconds.toFixed(2)} s; outside the job handlers ${(b.seconds - (b.stages.total ?? 0)).toFixed(2)} s) | server CPU ${b.serverCpu.toFixed(2)} s | job stage totals (s, summed over the ${UPLOADS} jobs): ${st} | load ${fmtLoad()}`,
      );
    }
    perLevel.push({ level, rate: median(rates), rates });
  }
  console.log('\nmedian per level:');
  for (const l of perLevel)
    console.log(
      `  ${String(l.level).padStart(7)}: ${l.rate.toFixed(0)} instances/s (rounds ${l.rates.map((x) => x.toFixed(0)).join(', ')}) = ${(l.rate / ORTHANC_PG).toFixed(2)}× Orthanc's ~${ORTHANC_PG}/s (target ≥ 4×: ${l.rate >= 4 * ORTHANC_PG ? 'met' : 'NOT met'})`,
    );
  // BENCH_EXPLAIN=1: the plans of the ingest's lookup of stored instances (dedupe stage, the query
  // of study-instances.repository.ts `existingInstances`) at the last level, for a new owner and for
  // a filler owner with ~200 studies, with 100 SOP UIDs that are not stored, in a study the owner
  // has and one it has not (the same SQL form as the repository's, JSON arrays).
  if (process.env.BENCH_EXPLAIN) {
    const sops = Array.from({ length: PER_UPLOAD }, (_, i) => `2.25.${9e15 + i}`);
    const fresh = await newPatient(ctx, `scale-explain-${randomUUID()}@example.com`);
    for (const [who, owner] of [
      ['new owner', fresh.id],
      ['filler owner', owners[0]!],
    ] as const) {
      const held = await q<{ uid: string }>(
        'select study_instance_uid as uid from studies where owner_id = $1 limit 1',
        [owner],
      );
      const studyUids = [...held.map((r) => r.uid), `2.25.${9e15 + 999}`];
      const plan = await q<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers) select s.study_instance_uid, i.sop_instance_uid, i.size_bytes, i.crc32, i.storage_key
           from instances i join studies s on s.id = i.study_id
          where s.owner_id = $1 and s.deleting_since is null
            and s.study_instance_uid = any(array(select jsonb_array_elements_text($2::jsonb)))
            and i.sop_instance_uid = any(array(select jsonb_array_elements_text($3::jsonb)))`,
        [owner, JSON.stringify(studyUids), JSON.stringify(sops)],
      );
      console.log(`\nexistingInstances, ${who}:\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
    const sizes = await q<{ name: string; size: string }>(
      `select c.relname as name, pg_size_pretty(pg_relation_size(c.oid)) as size from pg_class c
        where c.relname in ('instances', 'instances_pkey', 'instances_study_sop_key', 'instances_series_idx', 'instances_storage_location_key')`,
    );
    console.log(
      `sizes: ${sizes.map((r) => `${r.name} ${r.size}`).join(', ')}; shared_buffers ${(await q<{ shared_buffers: string }>('show shared_buffers'))[0]!.shared_buffers}`,
    );
  }
  const first = perLevel[0]!;
  const lastL = perLevel[perLevel.length - 1]!;
  console.log(
    `ratio ${lastL.level} / ${first.level}: ${(lastL.rate / first.rate).toFixed(2)} (target ≥ 0.9: ${lastL.rate / first.rate >= 0.9 ? 'met' : 'NOT met'})`,
  );
} finally {
  await sqlClient.end();
  await ctx.close();
}
