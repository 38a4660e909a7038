// Test data for bench/ingest/run.ts, made in a process of its own so that none of it (nor the
// garbage of making it) sits in the heap of the server under test. Writes the series as files
// (`files/00000.dcm`…, for Orthanc) and as a store-mode ZIP (`study.zip`, as the browser zips them)
// into the given folder and prints one line {files, bytes}.
//   {"set":"warm"|"ct"|"small","dir":…}
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildZip, makeDicom, uid } from '../../apps/server/test/helpers/studies';

const SETS = {
  /** The uncounted upload that warms the server's code paths. */
  warm: { count: 5, rows: 64, cols: 64 },
  /** A CT-like series: 300 slices of 512x512 16-bit. */
  ct: { count: 300, rows: 512, cols: 512 },
  /** Many small files: 5,000 of about 64 KB. */
  small: { count: 5000, rows: 180, cols: 180 },
} as const;

const job = JSON.parse(process.argv[2] ?? '{}') as { set: keyof typeof SETS; dir: string };
const { count, rows, cols } = SETS[job.set];
const study = uid();
const series = uid();
const files = Array.from({ length: count }, (_, i) =>
  makeDicom({
    studyUid: study,
    seriesUid: series,
    sopUid: uid(),
    instanceNumber: i + 1,
    rows,
    columns: cols,
  }),
);
const names = files.map((_, i) => `${String(i).padStart(5, '0')}.dcm`);
await mkdir(path.join(job.dir, 'files'), { recursive: true });
for (const [i, data] of files.entries()) await writeFile(path.join(job.dir, 'files', names[i]!), data);
await writeFile(
  path.join(job.dir, 'study.zip'),
  buildZip(files.map((data, i) => ({ name: `DICOM/${names[i]}`, data }))),
);
process.stdout.write(`${JSON.stringify({ files: count, bytes: files.reduce((n, f) => n + f.length, 0) })}\n`);
