import path from 'node:path';
import { type Page } from '@playwright/test';
import { expect, test } from './a11y';
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
import { chooseStudy, fillCard, providerRow } from './checkout';
import { adminContext, offeringProfessional } from './professionals';

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
 * Get Analysis on the study's row → the service → Purchase from the provider named so → paid.
 * Answers the price that provider's row showed ('$49.99').
 */
async function purchase(
  page: Page,
  row: ReturnType<typeof studyRow>,
  description: string,
  service: string,
  provider: string | RegExp,
): Promise<string> {
  await row.getByRole('link', { name: 'Get Analysis' }).click();
  await expect(page).toHaveURL(/\/services\/available\?action=getanalysis/);
  await expect(page.getByText(/You are purchasing an analysis for the study/)).toBeVisible();
  const offer = await providerRow(page, service, provider);
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
  // Sold by the platform's own automated analysis (an external AI vendor may sell it too).
  const price = await purchase(page, row, description, 'AI Quick Analysis', /Automated/);

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
  browser,
  baseURL,
}) => {
  test.setTimeout(300_000);
  // The package is sold by a verified professional who offers it; its automated part is the platform's.
  const admin = await adminContext(browser, baseURL!);
  const pro = await offeringProfessional(browser, baseURL!, admin, { first: 'Petra', last: 'Packard' }, [
    'Complete Analysis Package',
  ]);
  await admin.close();

  await registerPatient(page, uniqueEmail('package'), 'Jane', 'Doe');
  const { description, row, studyId } = await uploadStudy(page, 'MR Brain', 'MR', 3);
  expect(await seriesCount(page, studyId)).toBe(1);
  await purchase(page, row, description, 'Complete Analysis Package', pro.name);

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

  // The professional's part is theirs: the order waits in their My Orders.
  await pro.page.goto('/professional/orders');
  await expect(
    pro.page.getByRole('listitem').filter({ hasText: 'Complete Analysis Package' }).first(),
  ).toContainText('Awaiting Your Approval');
  await pro.context.close();
});

test('an admin adds an organisation and makes it an external AI vendor: https webhook, secret shown once, rotated, removed', async ({
  browser,
  baseURL,
}) => {
  const admin = await adminContext(browser, baseURL!);
  try {
    const page = admin.pages()[0]!;
    await page.goto('/admin');
    await page.getByRole('tab', { name: 'Providers' }).click();
    // The admin adds the vendor as an organisation of the directory. It offers nothing, so no
    // automated order of the other tests goes to it.
    const vendor = `Lumen Radiology AI ${Date.now()}`;
    await page.getByRole('button', { name: 'New Organisation' }).click();
    const form = page.getByRole('dialog', { name: 'New Organisation' });
    // Required fields are marked, and an empty one says it is required.
    await expect(form.getByLabel('Years of experience')).toHaveAttribute('aria-required', 'true');
    await expect(form.getByLabel('Website')).not.toHaveAttribute('aria-required', 'true');
    await form.getByRole('button', { name: 'Create Organisation' }).click();
    await expect(form.getByText('Years of experience is required')).toBeVisible();
    await expect(form.getByText('Country is required')).toBeVisible();
    await form.getByLabel('Name', { exact: true }).fill(vendor);
    await form.getByLabel('Specialty').fill('Radiology');
    await form.getByLabel('Description').fill('Automated chest X-ray and CT triage.');
    await form.getByLabel('Years of experience').fill('6');
    await form.getByLabel('Credentials (comma-separated)').fill('CE marked, FDA 510(k)');
    await form.getByLabel('City').fill('Boston');
    await form.getByLabel('Country').fill('United States');
    await form.getByLabel('Email').fill(`vendor-${Date.now()}@lumen.example.com`);
    await form.getByLabel('Website').fill('https://lumen.example.com');
    await form.getByRole('button', { name: 'Create Organisation' }).click();
    await expect(page.getByText('Organisation created', { exact: true })).toBeVisible();
    await expect(form).toHaveCount(0);
    const entry = page.getByRole('listitem', { name: vendor });
    await expect(entry).toContainText('Organisation');
    await expect(entry).toContainText('No ratings yet');
    // Without a linked professional or a webhook it cannot sell anything yet.
    await expect(entry).toContainText('Sells nothing yet');

    await entry.getByRole('button', { name: `AI vendor settings of ${vendor}` }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('heading', { name: `AI vendor: ${vendor}` })).toBeVisible();
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
    await expect(entry).not.toContainText('Sells nothing yet');
    // Opened again, the secret is not shown any more.
    await entry.getByRole('button', { name: `AI vendor settings of ${vendor}` }).click();
    await expect(dialog.getByLabel('Webhook URL')).toHaveValue('https://vendor.example.com/hook');
    await expect(dialog.getByLabel('Signing secret')).toHaveCount(0);
    const listed = await (await admin.request.get('/api/admin/providers')).text();
    expect(listed).not.toContain(first!);

    await dialog.getByRole('button', { name: 'Stop sending orders' }).click();
    await expect(dialog.getByRole('button', { name: 'Stop sending orders' })).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
    await expect(entry.getByText('External AI vendor', { exact: true })).toHaveCount(0);
    await expect(entry).toContainText('Sells nothing yet');
  } finally {
    await admin.close();
  }
});
