import { expect, test, type Page } from '@playwright/test';
import {
  newUid,
  pickFromTile,
  registerPatient,
  studyRow,
  tempDir,
  uniqueEmail,
  uploadAndReturnToStudies,
  writeSeries,
} from './study-files';

/** The signed-in user's study with this description, read through the API the pages use. */
async function studyByDescription(page: Page, description: string) {
  const me = (await (await page.request.get('/api/auth/me')).json()) as { id: string };
  const list = (await (await page.request.get(`/api/studies/user/${me.id}`)).json()) as {
    data: Array<{ id: string; metadata: { studyDescription: string | null } }>;
  };
  const item = list.data.find((s) => s.metadata.studyDescription === description);
  expect(item, `a study '${description}' in the list`).toBeTruthy();
  return item!.id;
}

async function seriesCount(page: Page, studyId: string): Promise<number> {
  const res = await page.request.get(`/api/studies/study/${studyId}`);
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { data: { seriesCount: number } }).data.seriesCount;
}

test('a patient buys AI Quick Analysis for a CT; the automated report completes it and adds a series', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await registerPatient(page, uniqueEmail('ai-analysis'), 'Jane', 'Doe');

  // A small CT study of one series.
  const description = `CT Chest ${Date.now()}`;
  const files = writeSeries(tempDir('ai-analysis'), 'ct', 3, {
    patientName: 'Doe^Jane',
    studyDescription: description,
    modality: 'CT',
    studyDate: '20240301',
    studyUid: newUid(),
  });
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', files);
  await uploadAndReturnToStudies(page);
  const row = studyRow(page, description);
  await expect(row).toBeVisible({ timeout: 90_000 });
  const studyId = await studyByDescription(page, description);
  const seriesBefore = await seriesCount(page, studyId);
  expect(seriesBefore).toBe(1);

  // Get Analysis → AI Quick Analysis → Purchase from its first provider.
  await row.getByRole('link', { name: 'Get Analysis' }).click();
  await expect(page).toHaveURL(/\/services\/available\?action=getanalysis/);
  await expect(page.getByText(/You are purchasing an analysis for the study/)).toBeVisible();
  const providers = page.getByRole('table', { name: 'Providers of AI Quick Analysis' });
  if (!(await providers.isVisible()))
    await page
      .getByRole('row', { name: /AI Quick Analysis/ })
      .first()
      .click();
  await providers.getByRole('button', { name: 'Purchase' }).first().click();

  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
  // The study picker reads 'patient name - study description'; pick ours whatever is preselected.
  const option = await dialog
    .locator('option')
    .filter({ hasText: description })
    .first()
    .getAttribute('value');
  await dialog.getByLabel('Select study:').selectOption(option!);
  await dialog.getByLabel('Card number').fill('4242 4242 4242 4242');
  await dialog.getByLabel('Expiry').fill('1234');
  await dialog.getByLabel('CVC').fill('123');
  await dialog.getByLabel('Postal code').fill('12345');
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment Completed' })).toBeVisible({ timeout: 30_000 });
  await dialog.getByRole('link', { name: 'Go to Purchased Services' }).click();
  await expect(page).toHaveURL(/\/services\/purchased$/);

  // The automated job (modules/analysis) completes the order within a minute; reload until it shows.
  const purchased = page.getByRole('row', { name: /AI Quick Analysis/ });
  await expect(purchased).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(purchased).toContainText('Completed', { timeout: 5_000 });
  }).toPass({ timeout: 90_000, intervals: [2_000, 3_000, 5_000] });

  // Its report arrived in the study as one more series.
  await expect.poll(() => seriesCount(page, studyId), { timeout: 30_000 }).toBe(seriesBefore + 1);
});
