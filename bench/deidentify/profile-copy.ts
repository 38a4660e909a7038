/**
 * `DeidentifyService.makeCopy` alone (no Orthanc) on the benchmark's CT, timed copy by copy with the
 * process's CPU time; with PROFILE_OUT, a CPU profile of the timed copies only (not of making the
 * data or of the warm-up) is written there, to open in Chrome's DevTools:
 *
 *   PROFILE_OUT=/tmp/copy.cpuprofile npx tsx --expose-gc bench/deidentify/profile-copy.ts
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tuneHeapForUploads } from '../../apps/server/src/heap-tuning';
import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { newPatient } from '../../apps/server/test/helpers/studies';
import { createTestContext } from '../../apps/server/test/helpers/test-app';
import { makeSeries } from './series';

const SLICES = Number(process.env.BENCH_SLICES ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
tuneHeapForUploads();
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const ctx = await createTestContext({ LOG_LEVEL: 'silent' });
try {
  const owner = await newPatient(ctx, 'profile-deidentify@example.com');
  const [studyId] = await ingestFiles(ctx, owner.id, makeSeries(SLICES, 'Profile^Copy'));
  const copy = () =>
    ctx.services.deidentify.makeCopy({
      userId: owner.id,
      studyId: studyId!,
      copyId: randomUUID(),
      includePdfReports: false,
    });
  await copy();
  const session = process.env.PROFILE_OUT ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  for (let r = 0; r < ROUNDS; r++) {
    gc();
    const t = performance.now();
    const cpu = process.cpuUsage();
    await copy();
    const used = process.cpuUsage(cpu);
    console.log(
      `copy ${r + 1}: ${((performance.now() - t) / 1000).toFixed(2)} s, CPU user ${(used.user / 1e6).toFixed(2)} s system ${(used.system / 1e6).toFixed(2)} s`,
    );
  }
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(process.env.PROFILE_OUT!, JSON.stringify(profile));
    session.disconnect();
  }
} finally {
  await ctx.close();
}
