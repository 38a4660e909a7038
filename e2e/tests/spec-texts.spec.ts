import { type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { fillCard } from './checkout';
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

/** The texts and rules of the specification that no other browser test reaches. */

/** The toast on screen (not the screen reader's copy of it) with this title. */
async function expectToast(page: Page, title: string) {
  await expect(
    page.locator('li[data-state="open"]').filter({ has: page.getByText(title, { exact: true }) }),
  ).toBeVisible();
}

test('analysis pages from a study, its errors, turnaround order, scope labels and the purchase texts', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await registerPatient(page, uniqueEmail('spec-texts'), 'Tess', 'Texts');
  const description = `Texts CT ${Date.now()}`;
  const files = writeSeries(tempDir('spec-texts'), 'series', 2, {
    studyUid: newUid(),
    patientName: 'Doe^Jane',
    studyDescription: description,
    modality: 'CT',
    studyDate: '20240301',
  });
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', files);
  await uploadAndReturnToStudies(page);
  const row = studyRow(page, description);
  await expect(row).toBeVisible({ timeout: 90_000 });

  // The Analysis services page is reached from the study's row menu, and names the patient as the
  // list does.
  await row.getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('menuitem', { name: 'Order Analysis' }).click();
  await expect(page).toHaveURL(/\/analysis\/services\?studyId=/);
  await expect(page.getByRole('heading', { name: 'Analysis Services' })).toBeVisible();
  await expect(page.getByText('Doe, Jane')).toBeVisible();
  const studyId = new URL(page.url()).searchParams.get('studyId')!;

  // A network error is an error loading the study, not a missing study.
  await page.route(`**/api/studies/${studyId}`, (route) => route.abort('internetdisconnected'));
  await page.reload();
  await expect(
    page.getByText('Error loading study: Network error: the server could not be reached.'),
  ).toBeVisible();
  await page.unroute(`**/api/studies/${studyId}`);
  await page.goto('/analysis/services?studyId=3f1c6a52-8d0e-4c1b-9a55-0e2f5b7c9d11');
  await expect(page.getByText('Study not found or invalid study ID.')).toBeVisible();

  // Available Services: scopes keep their acronyms; Turnaround Time sorts by duration.
  await page.goto('/services/available');
  const services = page.getByRole('table', { name: 'Available services' });
  const aiRow = services.getByRole('row', { name: /AI Quick Analysis/ });
  await expect(aiRow).toContainText('AI Analysis');
  await expect(page.getByLabel('Scope').locator('option', { hasText: 'AI Analysis' })).toHaveCount(1);
  const turnaround = services.getByRole('columnheader', { name: /Turnaround Time/ });
  await turnaround.getByRole('button').click();
  const times = async () =>
    (await services.locator('tbody tr td:nth-child(4)').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
  await expect.poll(async () => (await times())[0]).toBe('5-10 minutes');
  const minutes = (t: string) => {
    const match = /(\d+)-(\d+) (minutes|hours|days)/.exec(t);
    if (!match) return Infinity;
    const [, low, high, unit] = match;
    return ((Number(low) + Number(high)) / 2) * { minutes: 1, hours: 60, days: 1440 }[unit as 'days'];
  };
  const ascending = (await times()).map(minutes);
  expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
  await turnaround.getByRole('button').click();
  await expect.poll(async () => (await times()).at(-1)).toBe('5-10 minutes');

  // The purchase dialog: study options 'patient name - study description' named as everywhere, the
  // test-mode sentence (this server runs the sandbox processor), then 'Payment completed'.
  await page.getByRole('button', { name: 'Show AI Quick Analysis', exact: true }).click();
  await page
    .getByRole('table', { name: 'Providers of AI Quick Analysis' })
    .getByRole('row', { name: /Automated/ })
    .getByRole('button', { name: 'Purchase' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
  const option = dialog.locator('option', { hasText: description });
  await expect(option).toHaveText(`Doe, Jane - ${description}`);
  await dialog.getByLabel('Select study:').selectOption((await option.getAttribute('value'))!);
  await expect(dialog).toContainText('Payments are processed in test mode; no real card is charged.');
  await fillCard(dialog);
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment Completed' })).toBeVisible({ timeout: 30_000 });
  await expectToast(page, 'Payment completed');

  // One wording per order status: Transaction History's badge is an option of its status filter.
  await page.goto('/billing');
  const line = page.getByRole('row', { name: /AI Quick Analysis/ });
  await expect(line).toBeVisible();
  const badge = (await line.locator('td').nth(3).innerText()).trim();
  await expect(page.getByLabel('Status').locator('option', { hasText: badge })).toHaveCount(1);

  // Settings: the tab is 'Consent Management'.
  await page.goto('/settings');
  await page.getByRole('tab', { name: 'Consent Management' }).click();
  await expect(page.getByText('Sharing medical records with your care team')).toBeVisible();
});
