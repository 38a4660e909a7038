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

/** Uploads a small CT study and waits for its row in My Studies. */
async function uploadCtStudy(page: Page, description: string) {
  const dir = tempDir('orders');
  const files = writeSeries(dir, 'ct', 3, {
    patientName: 'Order^Patient',
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
  return row;
}

/** Opens Expert Review's providers and 'Purchase' of the first, then fills the card form. */
async function startExpertReviewPurchase(page: Page, cardNumber: string) {
  const providers = page.getByRole('table', { name: 'Providers of Expert Review' });
  if (!(await providers.isVisible()))
    await page
      .getByRole('row', { name: /Expert Review/ })
      .first()
      .click();
  await providers.getByRole('button', { name: 'Purchase' }).first().click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
  await dialog.getByLabel('Card number').fill(cardNumber);
  await dialog.getByLabel('Expiry').fill('1234');
  await dialog.getByLabel('CVC').fill('123');
  await dialog.getByLabel('Postal code').fill('12345');
  return dialog;
}

test('a patient buys Expert Review for a study with a card; a declined card creates nothing', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await registerPatient(page, uniqueEmail('orders'), 'Olga', 'Buyer');
  const description = `Order CT ${Date.now()}`;
  const row = await uploadCtStudy(page, description);

  // 'Get Analysis' on the study opens Available Services with the banner.
  await row.getByRole('link', { name: 'Get Analysis' }).click();
  await expect(page).toHaveURL(/\/services\/available\?action=getanalysis/);
  await expect(page.getByText(/You are purchasing an analysis for the study/)).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Expert Review', exact: true }).first()).toBeVisible();

  // A declined card: its message, and nothing bought.
  let dialog = await startExpertReviewPurchase(page, '4000 0000 0000 0002');
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Your card was declined.');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.goto('/billing');
  await expect(page.getByText('No transactions found')).toBeVisible();

  // 4242: paid, and listed in Purchased Services.
  await page.goto('/services/available');
  await page
    .getByRole('row', { name: /Expert Review/ })
    .first()
    .click();
  const price = await page
    .getByRole('table', { name: 'Providers of Expert Review' })
    .getByRole('row')
    .nth(1)
    .getByRole('cell')
    .nth(4)
    .innerText();
  dialog = await startExpertReviewPurchase(page, '4242 4242 4242 4242');
  // Pick the study by its description (the option reads 'patient name - study description').
  const option = await dialog
    .locator('option')
    .filter({ hasText: description })
    .first()
    .getAttribute('value');
  await dialog.getByLabel('Select study:').selectOption(option!);
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment Completed' })).toBeVisible({ timeout: 20_000 });
  await dialog.getByRole('link', { name: 'Go to Purchased Services' }).click();
  await expect(page).toHaveURL(/\/services\/purchased$/);
  const purchased = page.getByRole('row', { name: /Expert Review/ });
  await expect(purchased).toBeVisible();
  await expect(purchased).toContainText('Pending Provider Approval');

  // Transaction History: the purchase with its amount.
  await page.goto('/billing');
  const tx = page.getByRole('row', { name: /Expert Review/ });
  await expect(tx).toHaveCount(1);
  await expect(tx).toContainText(price.trim());
  await expect(tx).toContainText('visa •••• 4242');
});
