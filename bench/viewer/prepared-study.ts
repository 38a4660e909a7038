import { buildViewerApp } from '../../apps/server/src/modules/viewer/viewer-app';
import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { generateSeries, type GeneratedSeries } from '../../apps/server/test/helpers/dicom-series';
import { freePort } from '../../apps/server/test/helpers/orthanc';
import {
  createTestContext,
  eventually,
  registerPatient,
  type TestContext,
} from '../../apps/server/test/helpers/test-app';

/**
 * The app (in-process, for API calls) and its viewer origin listening on a free local port, serving
 * OHIF from `ohifDir` with `appConfigFile`, as the viewer benchmarks use them.
 */
export async function startViewerOrigin(opts: { ohifDir: string; appConfigFile: string }) {
  const viewerPort = await freePort();
  const ctx = await createTestContext({
    LOG_LEVEL: 'silent',
    DEFAULT_MAX_STORAGE_GB: '100',
    VIEWER_PUBLIC_URL: `http://127.0.0.1:${viewerPort}`,
  });
  const viewerApp = await buildViewerApp(ctx.services, { ...opts, logRequests: false });
  await viewerApp.listen({ port: viewerPort, host: '127.0.0.1' });
  return { ctx, viewerApp };
}

/**
 * A new patient with a generated CT-like series of `slices` 512×512 slices, stored and prepared for
 * the viewer as the product does before opening it.
 */
export async function preparedStudy(
  ctx: TestContext,
  email: string,
  slices: number,
): Promise<{ studyId: string; userId: string; auth: { authorization: string }; study: GeneratedSeries }> {
  const data = (await registerPatient(ctx, email)).json().data as { id: string; authToken: string };
  const auth = { authorization: `Bearer ${data.authToken}` };
  const study = generateSeries({ count: slices, size: 512, patientName: 'Bench^Viewer' });
  const [studyId] = await ingestFiles(
    ctx,
    data.id,
    study.files.map((f) => f.bytes),
  );
  await ctx.app.inject({ method: 'POST', url: `/api/studies/transfer/${studyId}`, headers: auth });
  await eventually(
    async () =>
      (await ctx.app.inject({ url: `/api/studies/study/${studyId}`, headers: auth })).json().data.status
        .transfer.value === 'completed',
    120_000,
  );
  return { studyId: studyId!, userId: data.id, auth, study };
}
