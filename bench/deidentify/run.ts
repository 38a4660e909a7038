/**
 * De-identification benchmark: a 300-slice CT (512×512 16-bit, each slice CT_small.dcm's real
 * header with its private tags, ~0.5 MiB) de-identified to the PS3.15 Basic Profile by us and by
 * Orthanc (`POST /studies/{id}/anonymize`), on the same files, in the same run, rounds interleaved
 * (the order alternates from round to round) so that load from other work falls on both.
 *
 * - Orthanc (Debian's, default storage: files + SQLite index, synced writes, the test helper's
 *   configuration): the 300 files are uploaded untimed; the clock runs around the anonymize call,
 *   which returns once the new study is written and indexed. The copy is deleted (untimed) after.
 * - Ours: the real job handler, `DeidentifyService.makeCopy` (read each instance from storage,
 *   de-identify, parse back, record the intent, store with fsync, then index the new study in one
 *   transaction), on the app's filesystem storage and PGlite, as `deidentified-copy` runs it.
 *
 * Then: memory (peak RSS, heap and ArrayBuffer growth during a copy of 100 and of 300 slices), and
 * the copy's steps timed one by one in a replica of makeCopy's loop (where the time goes).
 *
 *   npx tsx --expose-gc bench/deidentify/run.ts      (BENCH_SLICES=300, BENCH_ROUNDS=5)
 */
import { mkdtemp, open, rename, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { studies } from '../../apps/server/src/db/schema/index';
import { tuneHeapForUploads } from '../../apps/server/src/heap-tuning';
import { runWithServerFlags } from '../server-flags';
import { deidentifyInstance } from '../../apps/server/src/dicom/deidentify/deidentify';
import { createUidMap, deidentifyKeys } from '../../apps/server/src/dicom/deidentify/profile';
import { parseDicomHeader } from '../../apps/server/src/dicom-archive/dicom-header';
import { readInstance } from '../../apps/server/src/dicom-archive/instance-location';
import { crcOf } from '../../apps/server/src/dicom-archive/zip-reader';
import { createStudiesRepository } from '../../apps/server/src/modules/studies/studies.repository';
import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { orthancAvailable, startOrthanc } from '../../apps/server/test/helpers/orthanc';
import { newPatient } from '../../apps/server/test/helpers/studies';
import { createTestContext } from '../../apps/server/test/helpers/test-app';
import { median } from '../median';
import { makeSeries } from './series';

const SLICES = Number(process.env.BENCH_SLICES ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Newest first, as in test/dicom/deidentify-orthanc.test.ts: the newest edition Orthanc knows. */
const DICOM_VERSIONS = ['2023b', '2021b', '2017c'];

if (!orthancAvailable) throw new Error('Orthanc is not installed (Debian: orthanc, orthanc-dicomweb)');
// The worker that runs the copy job applies it (main.ts); so does the ingest bench.
runWithServerFlags();
tuneHeapForUploads();
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const MiB = (b: number) => `${(b / 1024 ** 2).toFixed(1)} MiB`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(`start ${new Date().toISOString()}, load average ${load()}, ${os.cpus().length} cores`);

const ctx = await createTestContext({ LOG_LEVEL: 'silent' });
const orthanc = await startOrthanc();
try {
  const owner = await newPatient(ctx, 'bench-deidentify@example.com');
  const repo = createStudiesRepository(ctx.services.database.db);
  const service = ctx.services.deidentify;

  let files: Buffer[] | null = makeSeries(SLICES, 'Bench^Three Hundred');
  const totalBytes = files.reduce((n, f) => n + f.length, 0);
  console.log(
    `study: ${files.length} slices, ${MiB(totalBytes)} (${(totalBytes / files.length / 1024).toFixed(0)} KiB each)`,
  );
  const [studyId] = await ingestFiles(ctx, owner.id, files);
  const [smallId] = await ingestFiles(ctx, owner.id, makeSeries(100, 'Bench^One Hundred'));

  // Orthanc: the same files, uploaded 4 at a time (untimed).
  let orthancStudy = '';
  const queue = [...files];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let f = queue.shift(); f; f = queue.shift()) {
        const res = await fetch(`${orthanc.url}/instances`, { method: 'POST', body: new Uint8Array(f) });
        if (!res.ok) throw new Error(`Orthanc upload: ${res.status}`);
        orthancStudy = ((await res.json()) as { ParentStudy: string }).ParentStudy;
      }
    }),
  );
  files = null;
  const stored = (await (
    await fetch(`${orthanc.url}/studies/${orthancStudy}/instances`)
  ).json()) as unknown[];
  if (stored.length !== SLICES) throw new Error(`Orthanc holds ${stored.length} instances`);

  let dicomVersion = '';
  const orthancOnce = async (): Promise<number> => {
    for (const v of dicomVersion ? [dicomVersion] : DICOM_VERSIONS) {
      const t = performance.now();
      const res = await fetch(`${orthanc.url}/studies/${orthancStudy}/anonymize`, {
        method: 'POST',
        // As the comparison test asks; KeepSource (true) and everything else left at Orthanc's defaults.
        body: JSON.stringify({ DicomVersion: v, Force: true, KeepPrivateTags: false }),
      });
      const ms = performance.now() - t;
      if (res.status === 400 && !dicomVersion) continue;
      if (!res.ok) throw new Error(`Orthanc anonymize: ${res.status} ${await res.text()}`);
      dicomVersion = v;
      const { ID } = (await res.json()) as { ID: string };
      const made = (await (await fetch(`${orthanc.url}/studies/${ID}/instances`)).json()) as unknown[];
      if (made.length !== SLICES) throw new Error(`Orthanc's copy has ${made.length} instances`);
      await fetch(`${orthanc.url}/studies/${ID}`, { method: 'DELETE' });
      return ms;
    }
    throw new Error(`Orthanc accepts none of ${DICOM_VERSIONS.join(', ')}`);
  };

  const copy = async (id: string): Promise<string> => {
    const copyId = await service.makeCopy({
      userId: owner.id,
      studyId: id,
      copyId: randomUUID(),
      includePdfReports: false,
    });
    if (!copyId) throw new Error('no copy made');
    return copyId;
  };
  const oursOnce = async (): Promise<number> => {
    const t = performance.now();
    const copyId = await copy(studyId!);
    const ms = performance.now() - t;
    const [row] = await ctx.services.database.db.select().from(studies).where(eq(studies.id, copyId));
    if (row?.instanceCount !== SLICES) throw new Error(`our copy has ${row?.instanceCount} instances`);
    return ms;
  };

  // Warm-up, untimed: a running worker has compiled this code long ago (bench/README.md, Ingest).
  await copy(smallId!);
  await orthancOnce();

  const ours: number[] = [];
  const theirs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    gc();
    const pair: Array<[string, () => Promise<number>, number[]]> = [
      ['Orthanc', orthancOnce, theirs],
      ['ours', oursOnce, ours],
    ];
    if (r % 2) pair.reverse();
    const line: string[] = [];
    for (const [name, run, into] of pair) {
      const ms = await run();
      into.push(ms);
      line.push(`${name} ${s(ms)}`);
    }
    console.log(
      `round ${r + 1}: ${line.join(', ')}  (ratio ${(theirs.at(-1)! / ours.at(-1)!).toFixed(2)}×, load ${load()})`,
    );
  }
  const ratios = ours.map((o, i) => theirs[i]! / o);
  console.log(
    `Orthanc (DicomVersion ${dicomVersion}), median of ${ROUNDS}: ${s(median(theirs))} (${s(Math.min(...theirs))}–${s(Math.max(...theirs))})`,
  );
  console.log(
    `ours (makeCopy), median of ${ROUNDS}:       ${s(median(ours))} (${s(Math.min(...ours))}–${s(Math.max(...ours))})`,
  );
  console.log(
    `speed, ours / Orthanc: ${(median(theirs) / median(ours)).toFixed(2)}× (per round ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
  );

  // Memory: a copy of 100 slices and of 300, each after a full collection, sampled every 5 ms.
  for (const [label, id] of [
    ['100 slices', smallId!],
    [`${SLICES} slices`, studyId!],
    ['100 slices', smallId!],
    [`${SLICES} slices`, studyId!],
  ] as const) {
    gc();
    const base = process.memoryUsage();
    const peak = { ...base };
    const sample = () => {
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
      peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers);
    };
    const timer = setInterval(sample, 5);
    const t = performance.now();
    await copy(id);
    const ms = performance.now() - t;
    clearInterval(timer);
    sample();
    console.log(
      `memory, copy of ${label.padEnd(10)} ${s(ms)}: peak RSS +${MiB(peak.rss - base.rss)} (base ${MiB(base.rss)}), heap used +${MiB(peak.heapUsed - base.heapUsed)}, ArrayBuffers +${MiB(peak.arrayBuffers - base.arrayBuffers)}`,
    );
  }

  // Where the time goes: makeCopy's loop replayed with a timer around each step (same calls, same order).
  gc();
  const { key, dateShiftFor } = deidentifyKeys(ctx.services.config.sessionSecret);
  const dctx = {
    dateShiftDays: dateShiftFor(owner.id),
    uids: createUidMap(key(`copy:${randomUUID()}`)),
    includePdfReports: false,
  };
  const split = { lookup: 0, read: 0, deidentify: 0, parse: 0, intent: 0, crc: 0, put: 0, index: 0 };
  const tAll = performance.now();
  let t = performance.now();
  const tick = (k: keyof typeof split) => {
    const now = performance.now();
    split[k] += now - t;
    t = now;
  };
  const { row: upload } = await repo.ensureUpload({
    ownerId: owner.id,
    objectName: `${owner.id}/deidentified/${randomUUID()}`,
    uploadType: 'regular',
    sizeBytes: 0,
    uploadedBy: owner.id,
  });
  const rows = await repo.instancesForDownload(studyId!);
  tick('lookup');
  const items = [];
  for (const row of rows) {
    const bytes = await readInstance(ctx.services.storage, row);
    tick('read');
    const result = deidentifyInstance(bytes, dctx);
    if (result.kind !== 'deidentified') throw new Error(result.reason);
    tick('deidentify');
    // As makeCopy reads a file back: the part before the pixel data, or the whole file without any.
    const [head, ...rest] = result.parts;
    const header = parseDicomHeader(
      head!,
      rest.length === 0 ? { complete: true } : { complete: false, fileSize: result.size },
    );
    if (header.kind !== 'instance') throw new Error('not an instance');
    tick('parse');
    const storageKey = `dicom/${upload.id}/${result.sopInstanceUid}.dcm`;
    await repo.recordIntents(upload.id, [storageKey]);
    tick('intent');
    const crc32 = result.parts.reduce((crc, part) => crcOf(part, crc), 0) >>> 0;
    tick('crc');
    await ctx.services.storage.put(storageKey, result.parts, { size: result.size });
    tick('put');
    items.push({ header, sizeBytes: result.size, crc32, storageKey });
  }
  await repo.commitIngest({
    uploadId: upload.id,
    ownerId: owner.id,
    defaultMaxBytes: 10 * 1024 ** 3,
    items,
    summary: {},
    deidentification: {},
    notification: () => ({ userId: owner.id, type: 'system', title: 'bench', description: 'bench' }),
  });
  tick('index');
  const all = performance.now() - tAll;
  console.log(`steps of one ${SLICES}-slice copy (replica of makeCopy's loop), ${s(all)} in all:`);
  for (const [k, ms] of Object.entries(split))
    console.log(`  ${k.padEnd(11)} ${s(ms).padStart(8)}  ${((100 * ms) / all).toFixed(0).padStart(3)} %`);

  // The disk's floor for the stores: the same 300 de-identified sizes written one by one, each
  // file synced (what Orthanc's SyncStorageArea does), then also with its directory synced and a
  // rename as our storage's put does (write to staging, fsync, rename, fsync the folder).
  const floorDir = await mkdtemp(path.join(ctx.dataDir, 'floor-'));
  const body = Buffer.alloc(items[0]!.sizeBytes, 1);
  for (const withDir of [false, true]) {
    const t0 = performance.now();
    for (let i = 0; i < items.length; i++) {
      const file = path.join(floorDir, `${withDir ? 'b' : 'a'}${i}.tmp`);
      const fh = await open(file, 'wx');
      await fh.write(body);
      await fh.sync();
      await fh.close();
      if (withDir) {
        await rename(file, `${file}.dcm`);
        const dh = await open(floorDir, 'r');
        await dh.sync();
        await dh.close();
      }
    }
    console.log(
      `disk floor, ${items.length} files ${withDir ? 'fsync + rename + folder fsync' : 'fsync each'}: ${s(performance.now() - t0)}`,
    );
  }
  await rm(floorDir, { recursive: true, force: true });
  console.log(`end ${new Date().toISOString()}, load average ${load()}`);
} finally {
  await orthanc.stop();
  await ctx.close();
}
