/**
 * `DeidentifyService.makeCopy` alone (no Orthanc) on the benchmark's CT, timed copy by copy with the
 * CPU time of the main thread and of the process's other threads (V8's collector helpers, which use
 * user time, and libuv's pool, which spends system time in the file calls; Linux only); with PROFILE_OUT, a CPU profile of the timed copies only (not of making the
 * data or of the warm-up) is written there, to open in Chrome's DevTools:
 *
 *   PROFILE_OUT=/tmp/copy.cpuprofile npx tsx --expose-gc bench/deidentify/profile-copy.ts
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tuneHeapForUploads } from '../../apps/server/src/heap-tuning';
import { runWithServerFlags } from '../server-flags';
import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { newPatient } from '../../apps/server/test/helpers/studies';
import { createTestContext } from '../../apps/server/test/helpers/test-app';
import { makeSeries } from './series';

const SLICES = Number(process.env.BENCH_SLICES ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
runWithServerFlags();
tuneHeapForUploads();
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** User and system CPU seconds of the main thread and of all the other threads, from /proc. */
function threadCpu() {
  const out = { main: [0, 0], others: [0, 0] };
  const tick = 1 / 100; // USER_HZ
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const into = tid === String(process.pid) ? out.main : out.others;
      into[0]! += Number(fields[11]) * tick;
      into[1]! += Number(fields[12]) * tick;
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}
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
    const before = threadCpu();
    await copy();
    const after = threadCpu();
    const used = (k: 'main' | 'others', i: number) => (after[k][i]! - before[k][i]!).toFixed(2);
    console.log(
      `copy ${r + 1}: ${((performance.now() - t) / 1000).toFixed(2)} s; CPU: main thread user ${used('main', 0)} s system ${used('main', 1)} s, other threads user ${used('others', 0)} s system ${used('others', 1)} s`,
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
