import { type Browser, type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { startApp } from '../app-process';
import { buy, literally, providerRow } from './checkout';
import { adminContext, linkedProfessional, signIn } from './professionals';
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

/** The names the product's first installations were seeded with: none may ever show again. */
const FICTIONAL = ['Amelia Hartwell', 'Kenji Morimoto', 'Northgate', 'Harbourview', 'Sofia Lindqvist'];

/** Uploads a small CT study and waits for its row in My Studies. */
async function uploadCt(page: Page, description: string) {
  const files = writeSeries(tempDir('directory'), 'ct', 2, {
    patientName: 'Directory^Patient',
    studyDescription: description,
    modality: 'CT',
    studyDate: '20240301',
    studyUid: newUid(),
  });
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', files);
  await uploadAndReturnToStudies(page);
  await expect(studyRow(page, description)).toBeVisible({ timeout: 90_000 });
}

test('a fresh installation lists no invented provider: only the platform’s automated analysis', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const app = await startApp();
  try {
    const context = await browser.newContext({ baseURL: app.base });
    const page = await context.newPage();
    await registerPatient(page, uniqueEmail('fresh'), 'Fran', 'Fresh');
    await page.goto('/providers');
    await page.getByRole('button', { name: 'Add Existing Provider' }).first().click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByText(/Automated Analysis/)).toBeVisible();
    for (const name of FICTIONAL) await expect(dialog.getByText(name)).toHaveCount(0);
    const directory = (await (await page.request.get('/api/providers')).json()).data as Array<{
      kind: string;
    }>;
    expect(directory.map((p) => p.kind)).toEqual(['automated']);
    await page.keyboard.press('Escape');
    await page.goto('/services/available');
    await expect(page.getByRole('row', { name: /AI Quick Analysis/ }).first()).toBeVisible();
    await expect(page.getByRole('row', { name: /Expert Review/ })).toHaveCount(0);
    for (const name of FICTIONAL) await expect(page.getByText(name)).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('fresh-services.png'), fullPage: true });
    await context.close();
  } finally {
    await app.stop();
  }
});

/** The professional completes and publishes their profile and offers Expert Review, in their workspace. */
async function publishAndOffer(proPage: Page) {
  await proPage
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Directory Profile' })
    .click();
  await expect(proPage).toHaveURL(/\/professional\/profile$/);
  await expect(proPage.getByRole('button', { name: 'Publish profile' })).toBeDisabled();
  const form = proPage.getByRole('form', { name: 'Directory profile' });
  await form.getByLabel('Description').fill('Chest and abdominal CT, second opinions within two days.');
  await form.getByLabel('Years of experience').fill('14');
  await form.getByLabel('City').fill('Seattle');
  await form.getByLabel('Country').fill('United States');
  await proPage.getByRole('button', { name: 'Save profile' }).click();
  await expect(proPage.getByRole('button', { name: 'Publish profile' })).toBeEnabled({ timeout: 10_000 });
  await proPage.getByRole('button', { name: 'Publish profile' }).click();
  await expect(proPage.getByText('Profile published').first()).toBeVisible();
  const offers = proPage.getByRole('table', { name: 'Your offers' });
  await offers
    .getByRole('row', { name: /Expert Review/ })
    .getByRole('button', { name: 'Offer this service' })
    .click();
  const dialog = proPage.getByRole('dialog');
  await dialog.getByLabel(/Price/).fill('175');
  await dialog
    .getByRole('button', { name: /Save|Offer/ })
    .last()
    .click();
  await expect(offers.getByRole('row', { name: /Expert Review/ })).toContainText('175');
}

async function professional(browser: Browser, baseURL: string, first: string, last: string) {
  const admin = await adminContext(browser, baseURL);
  const pro = await linkedProfessional(browser, baseURL, admin, null, { first, last });
  await admin.close();
  return pro;
}

test('a verified professional publishes a profile and an Expert Review offer; a patient buys it, it is delivered, rated, and the rating shows', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(300_000);
  const pro = await professional(browser, baseURL!, 'Vera', 'Castellanos');
  await publishAndOffer(pro.page);
  const name = 'Vera Castellanos';

  await registerPatient(page, uniqueEmail('rater'), 'Rita', 'Rater');
  // The directory lists them with the licence an admin verified, and no rating yet.
  await page.goto('/providers');
  await page.getByRole('button', { name: 'Add Existing Provider' }).first().click();
  const entry = page.getByRole('list', { name: 'Provider directory' }).getByRole('listitem', { name });
  await expect(entry).toContainText('Verified');
  await expect(entry).toContainText('licensed in WA');
  await expect(entry).toContainText('No ratings yet');
  await page.keyboard.press('Escape');

  const description = `Rated CT ${Date.now()}`;
  await uploadCt(page, description);
  await buy(page, 'Expert Review', name, description);

  // The professional delivers it from My Orders.
  await pro.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My Orders' }).click();
  const order = pro.page.getByRole('listitem').filter({ hasText: 'Expert Review' }).first();
  await order.getByRole('button', { name: 'Accept' }).click();
  await order.getByRole('button', { name: 'Write Report' }).click();
  const report = pro.page.getByRole('dialog', { name: 'Write Report' });
  await report.getByLabel('Findings').fill('No acute findings.');
  await report.getByLabel('Impression').fill('Normal CT.');
  await report.getByRole('button', { name: 'Deliver Report' }).click();
  await expect(order).toContainText('Completed', { timeout: 20_000 });

  // The patient rates it; the rating is the provider's for everyone to see.
  await page.goto('/services/purchased');
  const row = page.getByRole('row', { name: /Expert Review/ });
  await expect(row).toContainText('Completed');
  await row.getByRole('button', { name: 'Rate' }).click();
  const rate = page.getByRole('dialog', { name: 'Rate this order' });
  await rate.getByLabel('5 stars').check({ force: true });
  await rate.getByLabel('Comment (optional)').fill('Clear and <b>quick</b>.');
  await rate.getByRole('button', { name: 'Save rating' }).click();
  await expect(rate).toHaveCount(0);
  await expect(row.getByRole('img', { name: '5 of 5 stars' })).toBeVisible();

  await page.goto('/services/available');
  await expect(await providerRow(page, 'Expert Review', name)).toContainText('5.0/5 · 1 rating');
  await pro.context.close();
});

test('a professional who pauses is no longer purchasable, and an order paid just before is refunded at once', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(300_000);
  const pro = await professional(browser, baseURL!, 'Paulo', 'Pausado');
  await publishAndOffer(pro.page);
  const name = 'Paulo Pausado';
  await registerPatient(page, uniqueEmail('paused'), 'Pam', 'Patient');
  const description = `Paused CT ${Date.now()}`;
  await uploadCt(page, description);
  await buy(page, 'Expert Review', name, description);

  await pro.page.getByRole('button', { name: 'Pause offers' }).click();
  await pro.page.getByRole('button', { name: 'Pause and refund waiting orders' }).click();
  await expect(pro.page.getByText('Offers paused').first()).toBeVisible();

  await page.goto('/services/purchased');
  await expect(page.getByRole('row', { name: /Expert Review/ })).toContainText(/Refunded/);
  // No longer offered: the row is gone (the service itself may still be sold by others).
  await page.goto('/services/available');
  const show = page.getByRole('button', { name: 'Show Expert Review', exact: true });
  if (await show.isVisible()) await show.click();
  await expect(page.getByRole('row', { name: literally(name) })).toHaveCount(0);
  await pro.context.close();
});

test('npm run demo: demo data is labelled Demo everywhere, and a demo Expert Review is really delivered', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const app = await startApp('demo');
  try {
    const credentials = /demo\.patient@demo\.invalid \/ ([^\s"]+)/.exec(app.log());
    expect(credentials, app.log()).not.toBeNull();
    const context = await browser.newContext({ baseURL: app.base });
    const page = await context.newPage();
    await signIn(page, 'demo.patient@demo.invalid', credentials![1]);
    await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();
    const welcome = page.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
    if (await welcome.isVisible().catch(() => false))
      await welcome.getByRole('button', { name: 'Skip' }).click();

    await page.goto('/studies');
    await expect(studyRow(page, 'Demo: synthetic CT phantom (follow-up)')).toBeVisible();
    await page.goto('/providers');
    await page.getByRole('button', { name: 'Add Existing Provider' }).first().click();
    const demoEntry = page
      .getByRole('list', { name: 'Provider directory' })
      .getByRole('listitem', { name: 'Dr. Alex Morgan (Demo)' });
    await expect(demoEntry.getByText('Demo', { exact: true })).toBeVisible();
    await page.keyboard.press('Escape');

    await buy(page, 'Expert Review', 'Dr. Alex Morgan (Demo)', 'Demo: synthetic CT phantom (follow-up)');
    await page.goto('/services/purchased');
    const row = page.getByRole('row', { name: /Expert Review/ });
    await expect(row).toContainText('Demo');
    await expect(async () => {
      await page.reload();
      await expect(row).toContainText('Completed', { timeout: 2_000 });
    }).toPass({ timeout: 60_000 });
    const href = await row.getByRole('link', { name: 'Open report' }).getAttribute('href');
    const pdf = await page.request.get(href!);
    expect(pdf.ok()).toBe(true);
    await context.close();
  } finally {
    await app.stop();
  }
});
