import { ingestFiles } from '../../apps/server/test/helpers/dicom-ingest';
import { generateSeries, type GeneratedSeries } from '../../apps/server/test/helpers/dicom-series';
import { eventually, registerPatient, type TestContext } from '../../apps/server/test/helpers/test-app';

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
