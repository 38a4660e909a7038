/**
 * Study link benchmark: a SMART Health Link (with passcode) to a 300-slice CT study with two
 * delivered reports, resolved by a third-party receiver (kill-the-clipboard's SHLViewer: manifest
 * request, then decryption of the FHIR bundle) again and again; and the bundle's size for a study
 * of 2,000 instances.
 *
 *   npx tsx bench/links/run.ts      (PGlite; DATABASE_URL=… runs it on PostgreSQL)
 *
 * BENCH_ROUNDS (100) resolutions, after 5 warm-up ones.
 */
import { createServer } from 'node:net';
import { SHLViewer } from 'kill-the-clipboard';
import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { generateSeries } from '../../apps/server/test/helpers/dicom-series';
import { offeringProfessional } from '../../apps/server/test/helpers/directory';
import { deliveredExpertReview } from '../../apps/server/test/helpers/orders';
import { newPatient } from '../../apps/server/test/helpers/studies';
import { createTestContext } from '../../apps/server/test/helpers/test-app';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
// Each round comes from its own address (X-Forwarded-For behind a trusted proxy), so the public
// routes' per-address limit (60 a minute) measures nothing here.
const ctx = await createTestContext({ PUBLIC_URL: base, LOG_LEVEL: 'silent', TRUST_PROXY: 'true' });
let round = 0;
const fromNewAddress = (url: string, init?: RequestInit) => {
  round++;
  const headers = new Headers(init?.headers);
  headers.set('x-forwarded-for', `10.1.${Math.floor(round / 250)}.${round % 250}`);
  return fetch(url, { ...init, headers });
};
try {
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const owner = await newPatient(ctx, 'bench-links@example.com');
  await ctx.app.inject({
    method: 'PUT',
    url: `/api/users/${owner.id}`,
    headers: owner.auth,
    payload: { shareMedicalData: true },
  });
  const ct = generateSeries({ count: 300, size: 256 });
  const [studyId] = await ingestFiles(
    ctx,
    owner.id,
    ct.files.map((f) => f.bytes),
  );
  const pro = await offeringProfessional(ctx, 'bench-reader@example.com');
  await deliveredExpertReview(ctx, owner, pro, studyId!);
  await deliveredExpertReview(ctx, owner, pro, studyId!);

  const makeLink = async (ids: string[]) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/studies/links',
      headers: owner.auth,
      payload: {
        studyIds: ids,
        expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        passcode: 'bench-passcode',
      },
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    return res.json().viewerUrl as string;
  };
  const viewerUrl = await makeLink([studyId!]);
  const resolveOnce = async () => {
    const viewer = new SHLViewer({ shlinkURI: viewerUrl, fetch: fromNewAddress });
    const t = performance.now();
    const r = await viewer.resolveSHL({ recipient: 'Bench reader', passcode: 'bench-passcode' });
    const ms = performance.now() - t;
    return { ms, bundle: JSON.stringify(r.fhirResources[0]) };
  };
  for (let i = 0; i < 5; i++) await resolveOnce();
  const times: number[] = [];
  let size = 0;
  let reports = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const { ms, bundle } = await resolveOnce();
    times.push(ms);
    size = bundle.length;
    reports = (bundle.match(/"resourceType":"DiagnosticReport"/g) ?? []).length;
  }
  times.sort((a, b) => a - b);
  console.log(
    `300-slice study, ${reports} reports, bundle ${(size / 1024).toFixed(1)} KiB: manifest + decrypt over ${ROUNDS} rounds: ` +
      `p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
  );

  // A study of 2,000 instances (20 series of 100): the bundle lists series, not instances.
  const bigUid = `${ct.studyInstanceUid}.9`;
  const big: Buffer[] = [];
  for (let s = 0; s < 20; s++)
    big.push(
      ...generateSeries({ count: 100, size: 16, studyInstanceUid: bigUid, seriesNumber: s + 1 }).files.map(
        (f) => f.bytes,
      ),
    );
  const [bigStudy] = await ingestFiles(ctx, owner.id, big);
  const bigUrl = await makeLink([bigStudy!]);
  const bigBundle = await new SHLViewer({ shlinkURI: bigUrl, fetch: fromNewAddress }).resolveSHL({
    recipient: 'Bench reader',
    passcode: 'bench-passcode',
  });
  const bigSize = JSON.stringify(bigBundle.fhirResources[0]).length;
  console.log(`2,000-instance study: bundle ${(bigSize / 1024).toFixed(1)} KiB (limit 1,024 KiB)`);
} finally {
  await ctx.close();
}
