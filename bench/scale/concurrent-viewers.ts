/**
 * 1,000 viewers of one study at once: WADO-RS series metadata and frames from our server, each
 * against a static file server (@fastify/static) handing out the very same bytes from disk, in the
 * same run. Every viewer is a keep-alive connection asking again as soon as its answer ended
 * (closed loop, closed-loop.mjs in its own process).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/scale/concurrent-viewers.ts
 *
 * BENCH_VIEWERS (1000 connections), BENCH_SLICES (100 slices of 512×512, 16-bit), BENCH_SECONDS (15)
 * per row, BENCH_ONLY (metadata or frames: those rows alone). Without DATABASE_URL it runs on the embedded database.
 *
 * Metadata: one URL (every viewer opens the same series), after a first request has built and
 * cached it. Frames: each viewer walks the series' frames in turn, as a viewer scrolling through it.
 * Server CPU per answer is `process.cpuUsage()` of this process over the row, divided by answers.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { generateSeries } from '../../apps/server/test/helpers/dicom-series';
import { createTestContext, registerPatient } from '../../apps/server/test/helpers/test-app';
import { runScript } from './run-script';

const VIEWERS = Number(process.env.BENCH_VIEWERS ?? 1000);
const SLICES = Number(process.env.BENCH_SLICES ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);

interface Load {
  requests: number;
  rps: number;
  bytesPerSecond: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latency: { p50: number; p99: number; max: number };
  clientCpuMs: number;
}
/** A GET whose body is kept as sent (no decompression); anything but 200 throws. */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ headers: res.headers, body: Buffer.concat(chunks) })
            : reject(new Error(`${url}: ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

const closedLoop = (job: Record<string, unknown>) => runScript<Load>('./closed-loop.mjs', job);

/** One row: the load, and this process's CPU (the server under test) per answer. */
async function row(name: string, job: { base: string; paths: string[]; headers: Record<string, string> }) {
  const cpu0 = process.cpuUsage();
  const load = await closedLoop({ ...job, connections: VIEWERS, seconds: SECONDS });
  const cpu = process.cpuUsage(cpu0);
  const serverCpuMs = (cpu.user + cpu.system) / 1000;
  return { name, ...load, serverCpuPerAnswerMs: load.requests ? serverCpuMs / load.requests : NaN };
}

const ctx = await createTestContext({ LOG_LEVEL: 'silent', DEFAULT_MAX_STORAGE_GB: '100' });
const dir = await mkdtemp(path.join(tmpdir(), 'mi-bench-viewers-'));
const files = Fastify({ logger: false });
try {
  const reg = (await registerPatient(ctx, 'viewers@example.com')).json().data as {
    id: string;
    authToken: string;
  };
  const auth = { authorization: `Bearer ${reg.authToken}` };
  const series = generateSeries({ count: SLICES, size: 512, patientName: 'Bench^Viewers' });
  await ingestFiles(
    ctx,
    reg.id,
    series.files.map((f) => f.bytes),
  );
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const ourAddr = ctx.app.server.address();
  const ours = `http://127.0.0.1:${typeof ourAddr === 'object' && ourAddr ? ourAddr.port : 0}`;
  const seriesPath = `/dicomweb/studies/${series.studyInstanceUid}/series/${series.seriesInstanceUid}`;
  const metadataPath = `${seriesPath}/metadata`;
  const framePaths = series.files.map((f) => `${seriesPath}/instances/${f.sopInstanceUid}/frames/1`);
  const metadataHeaders = { ...auth, 'accept-encoding': 'gzip' };
  // What OHIF asks for: the frame as stored, in a multipart answer.
  const frameHeaders = {
    ...auth,
    accept: 'multipart/related; type="application/octet-stream"; transfer-syntax=*',
  };

  // The first metadata request builds and caches it; the rows measure the cached answer.
  const t = performance.now();
  const first = await rawGet(`${ours}${metadataPath}`, metadataHeaders);
  const firstMs = performance.now() - t;

  // The static server's files are the bytes our server sends: the metadata compressed, as asked
  // for, and each frame's multipart body.
  await mkdir(path.join(dir, 'frames'));
  const metadataBytes = (await rawGet(`${ours}${metadataPath}`, metadataHeaders)).body;
  if (first.headers['content-encoding'] !== 'gzip') throw new Error('metadata was not sent compressed');
  await writeFile(path.join(dir, 'metadata'), metadataBytes);
  let frameBytes = 0;
  for (const [i, p] of framePaths.entries()) {
    const { body } = await rawGet(`${ours}${p}`, frameHeaders);
    frameBytes += body.length;
    await writeFile(path.join(dir, 'frames', String(i)), body);
  }
  await files.register(fastifyStatic, { root: dir, etag: false, lastModified: false });
  await files.listen({ port: 0, host: '127.0.0.1' });
  const fileAddr = files.server.address();
  const statics = `http://127.0.0.1:${typeof fileAddr === 'object' && fileAddr ? fileAddr.port : 0}`;

  const only = process.env.BENCH_ONLY; // metadata | frames (profiling one kind)
  const rows = [];
  if (only !== 'frames') {
    rows.push(
      await row('metadata, ours (cached)', { base: ours, paths: [metadataPath], headers: metadataHeaders }),
    );
    rows.push(await row('metadata, static file', { base: statics, paths: ['/metadata'], headers: {} }));
  }
  if (only !== 'metadata') {
    rows.push(await row('frames, ours', { base: ours, paths: framePaths, headers: frameHeaders }));
    rows.push(
      await row('frames, static files', {
        base: statics,
        paths: framePaths.map((_, i) => `/frames/${i}`),
        headers: {},
      }),
    );
  }
  console.log(
    `\n${VIEWERS} viewers, ${SLICES} slices of 512×512; ${cpus().length} cores (${cpus()[0]?.model ?? ''}); ` +
      `database ${ctx.services.database.kind}; ${SECONDS} s per row; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  console.log(
    `metadata: first request ${firstMs.toFixed(0)} ms; ${metadataBytes.length} bytes as sent; frames ${(frameBytes / SLICES / 1024).toFixed(0)} KiB each`,
  );
  console.log('| row | answers/s | MiB/s | p50 | p99 | max | errors + non-2xx | server CPU per answer |');
  console.log('| --- | --: | --: | --: | --: | --: | --: | --: |');
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${(r.bytesPerSecond / 1048576).toFixed(0)} | ${r.latency.p50} ms | ${r.latency.p99} ms | ${r.latency.max} ms | ${r.errors + r.timeouts + r.non2xx} | ${r.serverCpuPerAnswerMs.toFixed(2)} ms |`,
    );
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  for (let i = 0; i + 1 < rows.length; i += 2)
    console.log(`${rows[i]!.name} / static: ${ratio(rows[i]!.rps, rows[i + 1]!.rps)} (answers/s)`);
} finally {
  await files.close();
  await ctx.close();
  await rm(dir, { recursive: true, force: true });
}
