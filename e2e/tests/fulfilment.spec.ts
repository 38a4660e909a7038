import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { adminContext, offeringProfessional } from './professionals';
import {
  newUid,
  pickFromTile,
  registerPatient,
  studyRow,
  tempDir,
  uniqueEmail,
  uploadAndReturnToStudies,
  writeSeries,
  zipEntries,
} from './study-files';
import { chooseStudy, fillCard, providerRow } from './checkout';

test('a professional who offers Expert Review accepts an order of it, writes and delivers the report; the patient gets it in the study', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(300_000);
  // The admin, in a context of its own.
  const admin = await adminContext(browser, baseURL!);
  const adminPage = admin.pages()[0]!;
  // A verified professional who published their profile and offers Expert Review.
  const pro = await offeringProfessional(browser, baseURL!, admin, { first: 'Gregory', last: 'House' }, [
    'Expert Review',
  ]);

  // The patient uploads a CT study and buys Expert Review from that professional with 4242.
  await registerPatient(page, uniqueEmail('patient-fulfil'), 'Paula', 'Patient');
  const description = `Fulfil CT ${Date.now()}`;
  const dir = tempDir('fulfil');
  const files = writeSeries(dir, 'ct', 3, {
    patientName: 'Fulfil^Patient',
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
  await row.getByRole('link', { name: 'Get Analysis' }).click();
  await expect(page).toHaveURL(/\/services\/available\?action=getanalysis/);
  await (
    await providerRow(page, 'Expert Review', pro.name)
  )
    .getByRole('button', { name: 'Purchase' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
  await fillCard(dialog);
  const option = await chooseStudy(dialog, description);
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment Completed' })).toBeVisible({ timeout: 20_000 });
  await page.goto('/services/purchased');
  await expect(page.getByRole('row', { name: /Expert Review/ })).toContainText('Pending Provider Approval');
  const studyId = option;

  // The professional finds it under My Orders, accepts, writes and delivers the report.
  const proPage = pro.page;
  const nav = proPage.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'My Orders' }).click();
  await expect(proPage).toHaveURL(/\/professional\/orders$/);
  const order = proPage.getByRole('listitem').filter({ hasText: 'Expert Review' }).first();
  await expect(order).toContainText('Awaiting Your Approval');
  await expect(order).not.toContainText('Fulfil');
  await order.getByRole('button', { name: 'Accept' }).click();
  await expect(order).toContainText('In Progress');
  // My Orders fits a phone: nothing wider than the screen.
  await proPage.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => horizontalOverflow(proPage)).toBeLessThanOrEqual(0);
  await proPage.screenshot({ path: test.info().outputPath('my-orders-390.png'), fullPage: true });
  await proPage.setViewportSize({ width: 1280, height: 800 });
  await expect(order.getByRole('link', { name: 'Open Study' })).toHaveAttribute(
    'href',
    `/studies/transfer/${studyId}`,
  );
  await order.getByRole('button', { name: 'Write Report' }).click();
  const report = proPage.getByRole('dialog', { name: 'Write Report' });
  await report.getByRole('button', { name: 'Deliver Report' }).click();
  await expect(report.getByText('Findings are required')).toBeVisible();
  await report.getByLabel('Findings').fill('No acute findings. <script>alert(1)</script>');
  await report.getByLabel('Impression').fill('Normal CT.');
  await report.getByLabel('Recommendation (optional)').fill('Routine follow-up.');
  await report.getByRole('button', { name: 'Deliver Report' }).click();
  await expect(report).toHaveCount(0, { timeout: 20_000 });
  await expect(order).toContainText('Completed');

  // The patient: Completed, Latest Completion, counters, and the report as a series in the download.
  await page.goto('/services/purchased');
  await expect(page.getByRole('row', { name: /Expert Review/ })).toContainText('Completed');
  await expect(
    page.getByRole('row', { name: /Expert Review/ }).getByRole('link', { name: 'Open report' }),
  ).toHaveAttribute('href', /\/api\/orders\/.+\/report$/);
  await page.goto('/');
  await expect(page.getByLabel('Completed Analysis: 1')).toBeVisible();
  const download = await page.request.get(`/api/studies/download/${studyId}`);
  expect(download.ok()).toBe(true);
  const zipPath = path.join(dir, 'download.zip');
  writeFileSync(zipPath, await download.body());
  const entries = [...zipEntries(zipPath).values()];
  expect(entries).toHaveLength(4);
  expect(
    entries.some((b) => b.includes(Buffer.from('application/pdf')) && b.includes(Buffer.from('%PDF-'))),
  ).toBe(true);
  const pdf = await page.request.get(`/api/purchases/user/${await userId(page)}`);
  const purchases = (await pdf.json()) as Array<{ id: string; orderStatus: string }>;
  const opened = await page.request.get(`/api/orders/${purchases[0]!.id}/report`);
  expect(opened.headers()['content-type']).toBe('application/pdf');

  // In the viewer, the report is a series of the study: OHIF lists it beside the images as a DOC
  // series without a thumbnail (its Encapsulated PDF opens in the PDF viewport).
  await page.goto('/studies');
  const studied = studyRow(page, description);
  await studied.getByRole('button', { name: 'More actions' }).click();
  const popup = page.waitForEvent('popup');
  await page.getByRole('menuitem', { name: 'View' }).click();
  const viewer = await popup;
  await viewer.waitForURL((u) => u.href.startsWith(`${process.env.E2E_VIEWER_URL!}/viewer`), {
    timeout: 60_000,
  });
  const reportSeries = viewer.locator('[data-cy="study-browser-thumbnail-no-image"]');
  await expect(reportSeries).toHaveCount(1, { timeout: 60_000 });
  await expect(reportSeries).toContainText('DOC');
  await expect(viewer.locator('[data-cy="study-browser-thumbnail"]')).toHaveCount(1);
  await viewer.close();

  // Every tab of the admin console fits a phone too.
  await adminPage.setViewportSize({ width: 390, height: 844 });
  await adminPage.goto('/admin');
  for (const tab of [
    'Users',
    'Audit log',
    'Health',
    'Professionals',
    'Providers',
    'Services',
    'Outbox',
    'Failed jobs',
    'Help articles',
  ]) {
    await adminPage.getByRole('tab', { name: tab }).click();
    await expect(adminPage.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
    await adminPage.waitForLoadState('networkidle');
    await adminPage.screenshot({
      path: test.info().outputPath(`admin-${tab.replace(/ /g, '-').toLowerCase()}-390.png`),
      fullPage: true,
    });
    expect(await horizontalOverflow(adminPage), `Admin → ${tab} at 390 px`).toBeLessThanOrEqual(0);
  }

  await pro.context.close();
  await admin.close();
});

/** How many pixels the page is wider than the window (a phone user would scroll sideways). */
function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

async function userId(page: Page): Promise<string> {
  return ((await (await page.request.get('/api/auth/me')).json()) as { id: string }).id;
}
