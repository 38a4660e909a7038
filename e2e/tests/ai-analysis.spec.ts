import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { pdfText } from './pdf-text';
import {
  fixtures,
  newUid,
  pickFromTile,
  registerPatient,
  studyRow,
  tempDir,
  uniqueEmail,
  uploadAndReturnToStudies,
  writeSeries,
} from './study-files';
import { chooseStudy, fillCard } from './checkout';
import { adminContext } from './professionals';

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

/** Uploads a one-series study of `count` images and answers its id once it is listed. */
async function uploadStudy(page: Page, name: string, modality: string, count: number) {
  const description = `${name} ${Date.now()}`;
  const files = writeSeries(tempDir(name.replace(/\W+/g, '-').toLowerCase()), modality.toLowerCase(), count, {
    patientName: 'Doe^Jane',
    studyDescription: description,
    modality,
    studyDate: '20240301',
    studyUid: newUid(),
  });
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', files);
  await uploadAndReturnToStudies(page);
  const row = studyRow(page, description);
  await expect(row).toBeVisible({ timeout: 90_000 });
  return { description, row, studyId: await studyByDescription(page, description) };
}

/**
 * Get Analysis on the study's row → the service → Purchase from its first provider → paid. Answers
 * the price that provider's row showed ('$49.99').
 */
async function purchase(
  page: Page,
  row: ReturnType<typeof studyRow>,
  description: string,
  service: string,
): Promise<string> {
  await row.getByRole('link', { name: 'Get Analysis' }).click();
  await expect(page).toHaveURL(/\/services\/available\?action=getanalysis/);
  await expect(page.getByText(/You are purchasing an analysis for the study/)).toBeVisible();
  const providers = page.getByRole('table', { name: `Providers of ${service}` });
  if (!(await providers.isVisible()))
    await page
      .getByRole('row', { name: new RegExp(service) })
      .first()
      .click();
  const offer = providers
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name: 'Purchase' }) })
    .first();
  const price = /\$\d+\.\d{2}/.exec(await offer.innerText())?.[0];
  expect(price, 'the offer row shows its price').toBeTruthy();
  await offer.getByRole('button', { name: 'Purchase' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
  await chooseStudy(dialog, description);
  await fillCard(dialog);
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment Completed' })).toBeVisible({ timeout: 30_000 });
  await dialog.getByRole('link', { name: 'Go to Purchased Services' }).click();
  await expect(page).toHaveURL(/\/services\/purchased$/);
  return price!;
}

test('a patient buys AI Quick Analysis for a fixture CT; the automated report completes it, adds a series and gives its real slice count and thickness', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await registerPatient(page, uniqueEmail('ai-analysis'), 'Jane', 'Doe');

  // pydicom's CT_small.dcm: one CT slice, Slice Thickness 5.000000, Study Description 'e+1'.
  const description = 'e+1';
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', [path.join(fixtures, 'CT_small.dcm')]);
  await uploadAndReturnToStudies(page);
  const row = studyRow(page, description);
  await expect(row).toBeVisible({ timeout: 90_000 });
  const studyId = await studyByDescription(page, description);
  const seriesBefore = await seriesCount(page, studyId);
  expect(seriesBefore).toBe(1);
  const price = await purchase(page, row, description, 'AI Quick Analysis');

  // The automated job (modules/analysis) completes the order within a minute; reload until it shows.
  const purchased = page.getByRole('row', { name: /AI Quick Analysis/ });
  await expect(purchased).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(purchased).toContainText('Completed', { timeout: 5_000 });
  }).toPass({ timeout: 90_000, intervals: [2_000, 3_000, 5_000] });

  // Its report arrived in the study as one more series.
  await expect.poll(() => seriesCount(page, studyId), { timeout: 30_000 }).toBe(seriesBefore + 1);

  // The report is computed from that study: its one image and its 5 mm slices.
  const link = purchased.getByRole('link', { name: 'Open report' });
  const report = await page.request.get((await link.getAttribute('href'))!);
  expect(report.headers()['content-type']).toBe('application/pdf');
  const text = pdfText(await report.body()).join('\n');
  expect(text).toContain('not a diagnosis');
  expect(text).toContain('Images: 1');
  expect(text).toContain('Slice thickness: 5 mm');

  // Transaction History lists it at the price the provider's row showed, paid with the card.
  await page.goto('/billing');
  const line = page
    .getByRole('table', { name: 'Transactions' })
    .getByRole('row', { name: /AI Quick Analysis/ });
  await expect(line).toHaveCount(1);
  await expect(line).toContainText(price);
  await expect(line).toContainText('Completed');
  await expect(line).toContainText('visa •••• 4242');
});

test('a Complete Analysis Package gets its automated report at once and waits for the professional', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await registerPatient(page, uniqueEmail('package'), 'Jane', 'Doe');
  const { description, row, studyId } = await uploadStudy(page, 'MR Brain', 'MR', 3);
  expect(await seriesCount(page, studyId)).toBe(1);
  await purchase(page, row, description, 'Complete Analysis Package');

  // The automated part arrives as a series of the study while the order waits for a professional.
  await expect.poll(() => seriesCount(page, studyId), { timeout: 90_000 }).toBe(2);
  const purchased = page.getByRole('row', { name: /Complete Analysis Package/ });
  await page.reload();
  await expect(purchased).toContainText('Pending Provider Approval');
  // Its automated report opens from the order before the professional's reading arrives.
  const automated = purchased.getByRole('link', { name: 'Automated report' });
  await expect(purchased.getByRole('link', { name: 'Open report' })).toHaveCount(0);
  const pdf = await page.request.get((await automated.getAttribute('href'))!);
  expect(pdf.headers()['content-type']).toBe('application/pdf');
  expect(pdfText(await pdf.body()).join('\n')).toContain('not a diagnosis');
  await page.goto('/notifications');
  await expect(page.getByText('Automated analysis ready').first()).toBeVisible();
});

test('an admin makes a provider an external AI vendor: https webhook, secret shown once, rotated, removed', async ({
  browser,
  baseURL,
}) => {
  const admin = await adminContext(browser, baseURL!);
  try {
    const page = admin.pages()[0]!;
    await page.goto('/admin');
    await page.getByRole('tab', { name: 'Providers' }).click();
    // A provider that offers only expert readings: no automated order of the other tests goes to it.
    const entry = page.getByRole('listitem', { name: 'Dr. Amelia Hartwell' });
    await entry.getByRole('button', { name: 'AI vendor settings of Dr. Amelia Hartwell' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('heading', { name: 'AI vendor: Dr. Amelia Hartwell' })).toBeVisible();
    await dialog.getByLabel('Webhook URL').fill('http://vendor.example.com/hook');
    await dialog.getByRole('button', { name: 'Save Webhook' }).click();
    await expect(dialog.getByText('The webhook URL must start with https://.')).toBeVisible();

    await dialog.getByLabel('Webhook URL').fill('https://vendor.example.com/hook');
    await dialog.getByRole('button', { name: 'Save Webhook' }).click();
    const secret = dialog.getByLabel('Signing secret');
    await expect(secret).toHaveText(/^whsec_[A-Za-z0-9_-]{40,}$/);
    const first = await secret.textContent();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await expect(secret).not.toHaveText(first!);
    await expect(secret).toHaveText(/^whsec_/);
    await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
    await expect(entry.getByText('External AI vendor', { exact: true })).toBeVisible();
    await expect(entry).toContainText('https://vendor.example.com/hook');
    // Opened again, the secret is not shown any more.
    await entry.getByRole('button', { name: 'AI vendor settings of Dr. Amelia Hartwell' }).click();
    await expect(dialog.getByLabel('Webhook URL')).toHaveValue('https://vendor.example.com/hook');
    await expect(dialog.getByLabel('Signing secret')).toHaveCount(0);
    const listed = await (await admin.request.get('/api/admin/providers')).text();
    expect(listed).not.toContain(first!);

    await dialog.getByRole('button', { name: 'Stop sending orders' }).click();
    await expect(dialog.getByRole('button', { name: 'Stop sending orders' })).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
    await expect(entry.getByText('External AI vendor', { exact: true })).toHaveCount(0);
  } finally {
    await admin.close();
  }
});
