/**
 * Export benchmark: 'Export my data' of one large study (default 1 GiB of 512×512 16-bit CT
 * slices) through the real path (POST /api/exports, the build-export job streaming instance by
 * instance from storage into a stored ZIP with its DICOMDIR), against `zip -0` writing the same
 * files from the same disk. Three figures: the whole request as a user sees it (POST until the
 * export reads ready, job pick-up and polling included), the build alone (the job's handler,
 * `ExportsService.build`, timed around it; storage's put ends with an fsync), and zip -0 with and
 * without an fsync of its output. Also the process's peak RSS growth during the build.
 *
 *   npx tsx bench/export/run.ts      (BENCH_MB=1024)
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { instances, studies } from '../../apps/server/src/db/schema/index';
import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { makeDicom, newPatient, uid } from '../../apps/server/test/helpers/studies';
import { createTestContext } from '../../apps/server/test/helpers/test-app';
import { createExportsRepository, createExportsService } from '../../apps/server/src/modules/exports/index';

const MB = Number(process.env.BENCH_MB ?? 1024);
const SLICE = 512;
const sliceBytes = SLICE * SLICE * 2;
const slices = Math.ceil((MB * 1024 * 1024) / sliceBytes);

const ctx = await createTestContext({ LOG_LEVEL: 'silent' });
const owner = await newPatient(ctx, 'bench-export@example.com');
const study = { studyUid: uid(), seriesUid: uid() };
// Stored in batches so the generator never holds the whole study.
for (let i = 0; i < slices; i += 64) {
  const batch = [];
  for (let n = i; n < Math.min(slices, i + 64); n++)
    batch.push(makeDicom({ ...study, sopUid: uid(), instanceNumber: n + 1, rows: SLICE, columns: SLICE }));
  await ingestFiles(ctx, owner.id, batch);
}
const [row] = await ctx.services.database.db.select().from(studies).where(eq(studies.ownerId, owner.id));
console.log(`study: ${row!.instanceCount} instances, ${(row!.sizeBytes / 1024 ** 2).toFixed(0)} MiB`);

const auth = { authorization: `Bearer ${owner.token}` };
const t0 = performance.now();
const created = await ctx.app.inject({ method: 'POST', url: '/api/exports', headers: auth, payload: {} });
const id = created.json().id as string;
let done: { status: string; files: Array<{ size: number }> };
for (;;) {
  done = (await ctx.app.inject({ url: `/api/exports/${id}`, headers: auth })).json();
  if (done.status === 'ready' || done.status === 'failed') break;
  await new Promise((r) => setTimeout(r, 50));
}
const requestMs = performance.now() - t0;
if (done.status !== 'ready') throw new Error(`export ${done.status}`);
const exportBytes = done.files[0]!.size;

// The build alone: the same service the job calls, with a queue that sends nothing.
const s = ctx.services;
const service = createExportsService({
  repo: createExportsRepository(s.database.db),
  storage: s.storage,
  access: s.access,
  audit: s.audit,
  queue: { send: async () => null },
  notify: async () => undefined,
  bundle: (p, o, m) => s.fhir.exportBundle(p, o, m),
  now: () => new Date(),
});
const session = { user: { id: owner.id, role: 'patient', accountStatus: 'active' } } as Parameters<
  typeof service.create
>[0];
const direct = await service.create(session, {}, { requestId: 'bench', ip: '' });
let peak = process.memoryUsage().rss;
const base = peak;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const t2 = performance.now();
await service.build(direct.id, s.log);
const buildMs = performance.now() - t2;
clearInterval(sampler);

// zip -0 of the same stored files (the storage directory holds each instance as one file).
const keys = await ctx.services.database.db
  .select({ key: instances.storageKey })
  .from(instances)
  .where(eq(instances.studyId, row!.id));
const storageDir = path.join(ctx.dataDir, 'storage');
const out = await mkdtemp(path.join(tmpdir(), 'bench-zip-'));
const list = keys.map((k) => k.key).join('\n');
const t1 = performance.now();
const zip = spawnSync('zip', ['-0', '-q', path.join(out, 'study.zip'), '-@'], {
  cwd: storageDir,
  input: list,
});
const zipMs = performance.now() - t1;
if (zip.status !== 0) throw new Error(`zip: ${zip.stderr}`);
const zipBytes = (await stat(path.join(out, 'study.zip'))).size;
await rm(path.join(out, 'study.zip'));
const t3 = performance.now();
spawnSync('zip', ['-0', '-q', path.join(out, 'study.zip'), '-@'], { cwd: storageDir, input: list });
spawnSync('sync', [path.join(out, 'study.zip')]);
const zipSyncMs = performance.now() - t3;
await rm(out, { recursive: true, force: true });

const rate = (bytes: number, ms: number) => bytes / 1024 ** 2 / (ms / 1000);
const line = (label: string, bytes: number, ms: number) =>
  console.log(`${label.padEnd(34)} ${(ms / 1000).toFixed(2)} s  ${rate(bytes, ms).toFixed(0)} MiB/s`);
line('export, POST until ready:', exportBytes, requestMs);
line('export build (job handler):', exportBytes, buildMs);
line('zip -0, same files:', zipBytes, zipMs);
line('zip -0 + fsync of its output:', zipBytes, zipSyncMs);
console.log(`build / zip -0:          ${(rate(exportBytes, buildMs) / rate(zipBytes, zipMs)).toFixed(2)}×`);
console.log(
  `build / zip -0 + fsync:  ${(rate(exportBytes, buildMs) / rate(zipBytes, zipSyncMs)).toFixed(2)}×`,
);
console.log(`peak RSS growth during the build: ${((peak - base) / 1024 ** 2).toFixed(0)} MiB`);
await ctx.close();
