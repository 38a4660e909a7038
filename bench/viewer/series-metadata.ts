/**
 * First (uncached) WADO-RS series metadata of a CT-like series, ours against Orthanc's DICOMweb
 * plugin on the same files: each round generates a fresh series (so neither side has it cached),
 * stores it in both, then times `GET …/studies/{s}/series/{se}/metadata` once on each, alternating
 * which side goes first. One round first is not counted (both servers' first requests).
 *
 *   npx tsx bench/viewer/series-metadata.ts   (BENCH_SLICES=300 BENCH_RUNS=7 BENCH_WARMUP=1; needs /usr/sbin/Orthanc)
 *
 * BENCH_PROFILE=<dir> writes a V8 CPU profile of our side's timed requests to <dir> (one per round).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { generateSeries } from '../../apps/server/test/helpers/dicom-series';
import { startOrthanc, type Orthanc } from '../../apps/server/test/helpers/orthanc';
import { createTestContext, registerPatient } from '../../apps/server/test/helpers/test-app';
import { median } from '../median';

const slices = Number(process.env.BENCH_SLICES ?? 300);
const runs = Number(process.env.BENCH_RUNS ?? 7);
const warmup = Number(process.env.BENCH_WARMUP ?? 1);
const profileDir = process.env.BENCH_PROFILE;

const ctx = await createTestContext({ LOG_LEVEL: 'silent', DEFAULT_MAX_STORAGE_GB: '100' });
let orthanc: Orthanc | undefined;
let session: Session | undefined;
try {
  const data = (await registerPatient(ctx, 'bench-metadata@example.com')).json().data as {
    id: string;
    authToken: string;
  };
  const auth = { authorization: `Bearer ${data.authToken}` };
  orthanc = await startOrthanc();
  if (profileDir) {
    await mkdir(profileDir, { recursive: true });
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
  }

  const timeOurs = async (metaPath: string, round: number) => {
    if (session) await session.post('Profiler.start');
    const cpu = process.cpuUsage();
    const t = process.hrtime.bigint();
    const res = await ctx.app.inject({
      url: `/dicomweb${metaPath}`,
      headers: { ...auth, 'accept-encoding': 'gzip' },
    });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(path.join(profileDir!, `ours-${round}.cpuprofile`), JSON.stringify(profile));
    }
    if (res.statusCode !== 200) throw new Error(`metadata ${res.statusCode}`);
    return { ms, cpuMs };
  };
  const timeOrthanc = async (metaPath: string) => {
    const t = process.hrtime.bigint();
    const res = await fetch(`${orthanc!.dicomweb}${metaPath}`, { headers: { 'accept-encoding': 'gzip' } });
    await res.arrayBuffer();
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (res.status !== 200) throw new Error(`orthanc metadata ${res.status}`);
    return { ms };
  };

  const ours: number[] = [];
  const oursCpu: number[] = [];
  const theirs: number[] = [];
  for (let i = -warmup; i < runs; i++) {
    const series = generateSeries({ count: slices, size: 512, patientName: `Bench^Metadata${i + warmup}` });
    await ingestFiles(
      ctx,
      data.id,
      series.files.map((f) => f.bytes),
    );
    for (const f of series.files) {
      const res = await fetch(`${orthanc.url}/instances`, { method: 'POST', body: new Uint8Array(f.bytes) });
      if (!res.ok) throw new Error(`Orthanc refused an instance: ${res.status}`);
    }
    const metaPath = `/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}/metadata`;
    let o = 0;
    let cpuMs = 0;
    let t = 0;
    for (const who of i % 2 === 0 ? (['ours', 'orthanc'] as const) : (['orthanc', 'ours'] as const)) {
      if (who === 'ours') ({ ms: o, cpuMs } = await timeOurs(metaPath, i + warmup));
      else t = (await timeOrthanc(metaPath)).ms;
    }
    console.log(
      `${i < 0 ? 'warm-up' : `round ${i + 1}`}: ours ${o.toFixed(0)} ms (process CPU ${cpuMs.toFixed(0)} ms), Orthanc ${t.toFixed(0)} ms (${(o / t).toFixed(2)}x)`,
    );
    if (i >= 0) {
      ours.push(o);
      oursCpu.push(cpuMs);
      theirs.push(t);
    }
  }
  const mo = median(ours);
  const mt = median(theirs);
  console.log(
    `\nFirst WADO-RS series metadata, ${slices} slices of 512x512 16-bit, median of ${runs}: ours ${mo.toFixed(0)} ms, Orthanc ${mt.toFixed(0)} ms, ratio ${(mo / mt).toFixed(2)}x (target ≤ 0.5: ${mo / mt <= 0.5 ? 'met' : 'not met'})`,
  );
  console.log(
    `raw: ours ${ours.map((x) => x.toFixed(0)).join(', ')} ms; Orthanc ${theirs.map((x) => x.toFixed(0)).join(', ')} ms`,
  );
  // On a loaded machine the wall times say as much about the load as about either server.
  console.log(`ours, process CPU during the request: median ${median(oursCpu).toFixed(0)} ms`);
} finally {
  session?.disconnect();
  await orthanc?.stop();
  await ctx.close();
}
