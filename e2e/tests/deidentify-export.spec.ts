import path from 'node:path';
import { expect, test } from './a11y';
import { canvasesWithImage } from '../canvas-image';
import {
  uploadGeneratedSeries,
  registerPatient,
  studyRow,
  tempDir,
  uniqueEmail,
  zipEntries,
} from './study-files';

const viewerBase = () => process.env.E2E_VIEWER_URL!;

test('a de-identified copy is made after its preview and opens in the viewer; Export my data downloads a DICOM media archive', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await registerPatient(page, uniqueEmail('deid'), 'Dora', 'Ident');
  const description = 'Identifiable phantom';
  await uploadGeneratedSeries(page, 'deid', {
    count: 3,
    size: 128,
    patientName: 'Ident^Dora',
    description,
  });
  const row = studyRow(page, 'Ident, Dora');
  await expect(row).toBeVisible({ timeout: 90_000 });

  // The preview shows what changes before anything is made.
  await row.getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('menuitem', { name: 'Make a de-identified copy' }).click();
  const dialog = page.getByRole('dialog', { name: 'Make a de-identified copy' });
  await expect(dialog.getByText('Ident^Dora').first()).toBeVisible({ timeout: 30_000 });
  await expect(dialog.getByText(/Removed|Blank|Replaced/).first()).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('deidentify-preview.png') });
  await dialog.getByRole('button', { name: 'Make copy' }).click();

  // The copy joins My Studies, marked, without the patient's name.
  const copy = page
    .getByRole('row')
    .filter({ hasText: 'De-identified' })
    .filter({ hasNotText: 'Ident, Dora' })
    .first();
  await expect(async () => {
    await page.reload();
    await expect(copy).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 90_000 });
  await page.screenshot({ path: test.info().outputPath('deidentified-copy.png') });

  // It opens in the viewer, drawn.
  await copy.getByRole('button', { name: 'More actions' }).click();
  const popup = page.waitForEvent('popup');
  await page.getByRole('menuitem', { name: 'View' }).click();
  const viewer = await popup;
  await viewer.waitForURL((u) => u.href.startsWith(`${viewerBase()}/viewer`), { timeout: 90_000 });
  await expect.poll(() => viewer.evaluate(canvasesWithImage), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
  await viewer.close();

  // Settings → Privacy & Sharing → Export my data: ready with a download that holds a DICOMDIR.
  await page.goto('/settings');
  await page.getByRole('tab', { name: 'Privacy & Sharing' }).click();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Export my data' }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('export-card-390.png') });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.getByRole('button', { name: 'Export my data' }).click();
  const exportsList = page.getByRole('list', { name: 'Your exports' });
  const link = exportsList.getByRole('link', { name: /^Download / }).first();
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh exports' }).click();
    await expect(link).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 120_000 });
  const download = page.waitForEvent('download');
  await link.click();
  const file = path.join(tempDir('deid-export'), 'export.zip');
  await (await download).saveAs(file);
  const entries = zipEntries(file);
  expect([...entries.keys()].some((name) => /(^|\/)DICOMDIR$/.test(name))).toBe(true);
  expect([...entries.keys()].some((name) => /index\.html$/.test(name))).toBe(true);
});

test('Share de-identified: the preview shows first, the copy is made and shared, and a link carries the copy', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await registerPatient(page, uniqueEmail('deid-share'), 'Sam', 'Sharer');
  const description = 'Share phantom';
  await uploadGeneratedSeries(page, 'deid-share', {
    count: 2,
    size: 128,
    patientName: 'Sharer^Sam',
    description,
  });
  const row = studyRow(page, 'Sharer, Sam');
  await expect(row).toBeVisible({ timeout: 90_000 });
  const me = (await (await page.request.get('/api/auth/me')).json()) as { id: string };
  expect((await page.request.put(`/api/users/${me.id}`, { data: { shareMedicalData: true } })).ok()).toBe(
    true,
  );
  await page.reload();

  // Share Study → 'Share a de-identified copy': what it changes shows before anything is sent.
  await row.getByRole('button', { name: 'Share study' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share Study' });
  await dialog.getByRole('combobox', { name: 'Email' }).fill('researcher@example.com');
  await dialog.getByRole('combobox', { name: 'Email' }).press('Enter');
  await dialog.getByRole('checkbox', { name: 'Share a de-identified copy' }).click();
  await expect(dialog.getByText('Sharer^Sam').first()).toBeVisible({ timeout: 30_000 });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('share-deidentified-390.png') });
  await page.setViewportSize({ width: 1280, height: 720 });
  await dialog.getByRole('button', { name: 'Share Study' }).click();
  await expect(page.getByText('Making a de-identified copy').first()).toBeVisible();

  // The copy joins My Studies, and it (not the original) is what the researcher was given.
  const copy = page
    .getByRole('row')
    .filter({ hasText: 'De-identified' })
    .filter({ hasNotText: 'Sharer, Sam' })
    .first();
  await expect(async () => {
    await page.reload();
    await expect(copy).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 90_000 });
  await expect(async () => {
    await copy.getByRole('button', { name: 'Share study' }).click();
    const current = page.getByRole('dialog', { name: 'Share Study' }).getByRole('list', {
      name: 'Currently Shared With',
    });
    await expect(current).toContainText('researcher@example.com', { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  // The copy is shared as it is: no second de-identification is offered for it.
  const copyDialog = page.getByRole('dialog', { name: 'Share Study' });
  await expect(
    copyDialog.getByText('This study is a de-identified copy: it is shared as it is.'),
  ).toBeVisible();
  await expect(copyDialog.getByRole('checkbox', { name: 'Share a de-identified copy' })).toHaveCount(0);
  await page.keyboard.press('Escape');
  await row.getByRole('button', { name: 'Share study' }).click();
  await expect(page.getByRole('dialog', { name: 'Share Study' })).toContainText(
    'Not shared with anyone yet.',
  );
  await page.keyboard.press('Escape');

  // A study link to de-identified copies: the copy exists now, so the link is made at once, on it.
  await row.getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('menuitem', { name: 'Share by link / QR' }).click();
  const linkDialog = page.getByRole('dialog', { name: 'Share by link / QR' });
  await linkDialog.getByRole('checkbox', { name: 'Link to de-identified copies' }).click();
  await expect(linkDialog.getByText('Sharer^Sam').first()).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: test.info().outputPath('link-deidentified-1280.png') });
  await linkDialog.getByRole('button', { name: 'Create link' }).click();
  await expect(page.getByRole('dialog', { name: 'Your link is ready' })).toBeVisible();
  const links = (await (await page.request.get('/api/studies/links')).json()).links as Array<{
    studies: Array<{ id: string }>;
  }>;
  const studies = (await (await page.request.get(`/api/studies/user/${me.id}`)).json()).data as Array<{
    id: string;
    deidentified?: boolean;
  }>;
  const copyId = studies.find((s) => s.deidentified)!.id;
  expect(links[0]!.studies.map((s) => s.id)).toEqual([copyId]);
});
