// Upload clients for bench/scale/horizontal.ts, in a process of their own (as browsers are). Reads
// one JSON job from argv: the API node and one upload per client (each by its own account: token for
// tus, session for the process call). Makes every study before the clock starts: a CT-like series of
// `slices` slices of size × size 16-bit pixels (apps/server/src/dicom/synthetic-series.ts) as a
// store-mode ZIP, as the upload page makes. Then all clients start at once; each sends its study
// through tus and asks for processing. Prints one line {start, end, bytes}: the first byte sent and
// the last process call answered (epoch ms).
//   {"base":…,"slices":200,"size":512,"uploads":[{"token","auth","objectName"}]}
import { generateSeries } from '../../apps/server/test/helpers/dicom-series';
import { buildZip } from '../../apps/server/test/helpers/studies';
import { tusUpload } from '../../apps/server/test/helpers/tus-upload';

interface Job {
  base: string;
  slices: number;
  size: number;
  uploads: Array<{ token: string; auth: Record<string, string>; objectName: string }>;
}
const job = JSON.parse(process.argv[2] ?? '{}') as Job;

const zips = job.uploads.map((_, u) => {
  const series = generateSeries({
    count: job.slices,
    size: job.size,
    patientName: `Horizontal^Sender${u}`,
    patientId: `HZ-${u}`,
    description: 'CT chest (horizontal bench)',
  });
  return buildZip(
    series.files.map((f, i) => ({ name: `DICOM/I${String(i).padStart(5, '0')}.dcm`, data: f.bytes })),
  );
});
const now = () => performance.timeOrigin + performance.now();
// Node loads fetch on first use; a browser has long done so.
await (await fetch(`${job.base}/api/health`)).arrayBuffer();

const start = now();
await Promise.all(
  job.uploads.map(async (u, i) => {
    await tusUpload(job.base, u.token, u.objectName, zips[i]!, { chunkSize: 32 * 1024 * 1024 });
    const res = await fetch(`${job.base}/api/studies/process`, {
      method: 'POST',
      headers: { ...u.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ prefix: u.objectName, jobContext: { uploadType: 'regular' } }),
    });
    if (res.status !== 202) throw new Error(`process call answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }),
);
const end = now();
process.stdout.write(`${JSON.stringify({ start, end, bytes: zips.reduce((n, z) => n + z.length, 0) })}\n`);
