// Upload clients for bench/scale/ingest.ts, in a process of their own (as browsers are). Reads one
// JSON job from argv: the server, the uploads (each by its own patient: token for tus, session for
// the process call) and how many clients send them at once. Makes every archive before the clock
// starts (one study and series per upload, `perUpload` instances of rows × columns 16-bit pixels,
// as a store-mode ZIP like the upload page makes), then the clients each take the next upload,
// send it through tus and ask for processing at once (the upload page's two calls), until none are
// left. Prints one line {start, end, bytes}: the first byte sent and the last process call answered
// (epoch ms).
//   {"base":…,"clients":5,"perUpload":100,"rows":2,"columns":2,"uploads":[{"token","auth","objectName"}]}
import { buildZip, makeDicom, uid } from '../../apps/server/test/helpers/studies';
import { tusUpload } from '../../apps/server/test/helpers/tus-upload';

interface Job {
  base: string;
  clients: number;
  perUpload: number;
  rows: number;
  columns: number;
  uploads: Array<{ token: string; auth: Record<string, string>; objectName: string }>;
}
const job = JSON.parse(process.argv[2] ?? '{}') as Job;

const zips = job.uploads.map((_, u) => {
  const studyUid = uid();
  const seriesUid = uid();
  return buildZip(
    Array.from({ length: job.perUpload }, (_, i) => ({
      name: `DICOM/${String(i).padStart(5, '0')}.dcm`,
      data: makeDicom({
        studyUid,
        seriesUid,
        sopUid: uid(),
        instanceNumber: i + 1,
        rows: job.rows,
        columns: job.columns,
        patientName: `Scale^Sender${u}`,
      }),
    })),
  );
});
const now = () => performance.timeOrigin + performance.now();
// Node loads fetch on first use; a browser has long done so.
await (await fetch(`${job.base}/api/health`)).arrayBuffer();

const start = now();
let next = 0;
await Promise.all(
  Array.from({ length: job.clients }, async () => {
    while (next < job.uploads.length) {
      const i = next++;
      const u = job.uploads[i]!;
      await tusUpload(job.base, u.token, u.objectName, zips[i]!, { chunkSize: 32 * 1024 * 1024 });
      const res = await fetch(`${job.base}/api/studies/process`, {
        method: 'POST',
        headers: { ...u.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ prefix: u.objectName, jobContext: { uploadType: 'regular' } }),
      });
      if (res.status !== 202) throw new Error(`process call answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  }),
);
const end = now();
process.stdout.write(`${JSON.stringify({ start, end, bytes: zips.reduce((n, z) => n + z.length, 0) })}\n`);
