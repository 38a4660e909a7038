import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { zipSync } from 'fflate';
import {
  digests,
  fixtures,
  listFiles,
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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** 'LLL dd, y' */
const formatDay = (d: Date) =>
  `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, '0')}, ${d.getFullYear()}`;

/** Downloads a study through its row's More actions menu; returns the archive's entries. */
async function downloadFromRow(page: Page, rowText: string) {
  await studyRow(page, rowText).getByRole('button', { name: 'More actions' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Download', exact: true }).click();
  await expect(page.getByText('Downloading Study', { exact: true })).toBeVisible();
  await expect(page.getByText('Your download will begin shortly...', { exact: true })).toBeVisible();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^study-.+\.zip$/);
  const saved = path.join(tempDir('download'), file.suggestedFilename());
  await file.saveAs(saved);
  return zipEntries(saved);
}

async function deleteFromRow(page: Page, rowText: string) {
  await studyRow(page, rowText).getByRole('button', { name: 'Delete study' }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm.getByRole('heading', { name: 'Delete Study' })).toBeVisible();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Study Deleted', { exact: true })).toBeVisible();
  await expect(page.getByText('The study has been successfully deleted.', { exact: true })).toBeVisible();
  await expect(studyRow(page, rowText)).toHaveCount(0);
}

test('a folder of DICOM files is uploaded, processed, listed, downloaded byte for byte and deleted', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await registerPatient(page, uniqueEmail('folder'));
  const dir = tempDir('folder');
  const studyUid = newUid();
  const spec = {
    patientName: 'Folder^Jane',
    studyDescription: 'Folder Upload Study',
    modality: 'MR',
    studyDate: '20210304',
    studyUid,
  };
  const instances = [...writeSeries(dir, 'SERIES1', 2, spec), ...writeSeries(dir, 'nested/SERIES2', 1, spec)];
  // Folders from discs and PACS exports carry other files too; they are skipped, not fatal.
  writeFileSync(path.join(dir, 'README.TXT'), 'Exported images.\n');

  await page.goto('/studies');
  await expect(page.getByRole('heading', { name: 'My Studies' })).toBeVisible();
  await expect(page.getByText('Manage and analyze your medical studies')).toBeVisible();
  await expect(page.getByText('No studies found')).toBeVisible();
  await page.getByRole('link', { name: 'Upload New Study' }).click();
  await expect(page).toHaveURL(/\/upload\?backUrl=\/studies$/);

  await pickFromTile(page, 'Select Folder', dir);
  await expect(page.getByText('You selected 4 file(s)')).toBeVisible();
  await uploadAndReturnToStudies(page);

  const row = studyRow(page, 'Folder, Jane');
  await expect(row).toBeVisible({ timeout: 90_000 });
  // The notification names the file it skipped, so it can be found.
  await page.goto('/notifications');
  await expect(page.getByRole('list', { name: 'All notifications' })).toContainText(
    /1 file was skipped \(1 file: not a DICOM file — \S*README\.TXT\)/,
  );
  await page.goto('/studies');
  // The first cell is the row's selection checkbox (Share by link / QR for several studies).
  const cells = row.getByRole('cell');
  await expect(cells.nth(0).getByRole('checkbox', { name: 'Select Folder Upload Study' })).toBeVisible();
  await expect(cells.nth(1)).toHaveText('Folder Upload Study');
  await expect(cells.nth(2)).toHaveText('Folder, Jane');
  await expect(cells.nth(3)).toHaveText('MR');
  await expect(cells.nth(4)).toHaveText(formatDay(new Date()));
  await expect(cells.nth(5)).toHaveText('Mar 04, 2021');
  await expect(cells.nth(6)).toHaveText('');
  const analysis = row.getByRole('link', { name: 'Get Analysis' });
  await expect(analysis).toHaveAttribute(
    'href',
    /^\/services\/available\?action=getanalysis&studyId=[^&]+&studyName=Folder%20Upload%20Study&patientName=Folder%2C%20Jane$/,
  );

  await row.getByRole('button', { name: 'Study information' }).click();
  const info = page.getByRole('dialog', { name: 'Study Information' });
  await expect(info).toContainText(studyUid);
  await expect(info).toContainText('Folder Upload Study');
  await expect(info.getByText('Location').locator('xpath=following-sibling::dd[1]')).toHaveText('N/A');
  await expect(info).toContainText('Mar 04, 2021');
  // The patient's ID is not in the list; the dialog reads it with the study.
  await expect(info.getByText('Patient Information').locator('xpath=following-sibling::dd[1]')).toHaveText(
    'Folder, Jane, ID PID-1',
  );
  await page.keyboard.press('Escape');

  // View opens the viewer page of the study in a new tab.
  await row.getByRole('button', { name: 'More actions' }).click();
  const popup = page.waitForEvent('popup');
  await page.getByRole('menuitem', { name: 'View' }).click();
  await expect(await popup).toHaveURL(/\/studies\/transfer\/[^/]+$/);
  await (await popup).close();

  const entries = await downloadFromRow(page, 'Folder, Jane');
  expect(digests(entries.values())).toEqual(digests(instances.map((f) => readFileSync(f))));

  await deleteFromRow(page, 'Folder, Jane');
  await expect(page.getByText('No studies found')).toBeVisible();
});

test('a ZIP is uploaded as it is; its studies are sorted, filtered, downloaded and deleted', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await registerPatient(page, uniqueEmail('zip'));
  const ct = readFileSync(path.join(fixtures, 'CT_small.dcm'));
  const mr = readFileSync(path.join(fixtures, 'MR_small.dcm'));
  const zipFile = path.join(tempDir('zip'), 'two-studies.zip');
  writeFileSync(
    zipFile,
    zipSync({ 'export/CT/CT_small.dcm': ct, 'export/MR/MR_small.dcm': mr }, { level: 6 }),
  );

  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Upload ZIP', zipFile);
  await expect(page.getByText('You selected 1 file(s)')).toBeVisible();
  await uploadAndReturnToStudies(page);

  await expect(studyRow(page, 'CompressedSamples, CT1')).toBeVisible({ timeout: 90_000 });
  await expect(studyRow(page, 'CompressedSamples, MR1')).toBeVisible();
  await expect(studyRow(page, 'CompressedSamples, CT1')).toContainText('e+1');
  await expect(studyRow(page, 'CompressedSamples, CT1')).toContainText('Jan 19, 2004');
  await expect(studyRow(page, 'CompressedSamples, MR1').getByRole('cell').nth(1)).toHaveText('N/A');
  await expect(studyRow(page, 'CompressedSamples, MR1')).toContainText('Aug 26, 2004');

  const bodyRows = page.locator('tbody tr');
  const order = async () => (await bodyRows.allInnerTexts()).map((t) => (t.includes('CT1') ? 'CT' : 'MR'));
  const header = (name: string) => page.getByRole('columnheader', { name });
  await expect(header('Upload Date')).toHaveAttribute('aria-sort', 'descending');
  await header('Patient Name').getByRole('button').click();
  await expect(header('Patient Name')).toHaveAttribute('aria-sort', 'ascending');
  expect(await order()).toEqual(['CT', 'MR']);
  await header('Patient Name').getByRole('button').click();
  await expect(header('Patient Name')).toHaveAttribute('aria-sort', 'descending');
  expect(await order()).toEqual(['MR', 'CT']);
  await header('Study Date').getByRole('button').click();
  await expect(header('Study Date')).toHaveAttribute('aria-sort', 'ascending');
  expect(await order()).toEqual(['CT', 'MR']);

  // Modality select, search and the study date range.
  await page.getByRole('combobox', { name: 'Modality' }).click();
  await expect(page.getByRole('option')).toHaveText(['All Types', 'CT', 'MR']);
  await page.getByRole('option', { name: 'MR' }).click();
  expect(await order()).toEqual(['MR']);
  await page.getByRole('combobox', { name: 'Modality' }).click();
  await page.getByRole('option', { name: 'All Types' }).click();
  await page.getByRole('searchbox', { name: 'Search studies' }).fill('ct1');
  expect(await order()).toEqual(['CT']);
  await page.getByRole('searchbox', { name: 'Search studies' }).fill('');
  expect(await order()).toHaveLength(2);

  await page.getByRole('button', { name: 'Study date range' }).click();
  const picker = page.getByRole('dialog');
  await picker.getByRole('combobox', { name: 'Choose the Year' }).first().selectOption('2004');
  await picker.getByRole('combobox', { name: 'Choose the Month' }).first().selectOption({ label: 'July' });
  await picker.getByRole('button', { name: /^1 July 2004,/ }).click();
  await expect(picker).toBeVisible();
  await picker.getByRole('button', { name: /^31 August 2004,/ }).click();
  await expect(picker).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Study date:/ })).toContainText(
    'Jul 01, 2004 - Aug 31, 2004',
  );
  expect(await order()).toEqual(['MR']);
  await page.getByRole('button', { name: 'Clear study date range' }).click();
  expect(await order()).toHaveLength(2);

  const ctEntries = await downloadFromRow(page, 'CompressedSamples, CT1');
  expect(digests(ctEntries.values())).toEqual(digests([ct]));
  const mrEntries = await downloadFromRow(page, 'CompressedSamples, MR1');
  expect(digests(mrEntries.values())).toEqual(digests([mr]));

  // Removed meanwhile (say, from another tab): the stale row's download fails with the spec's toast.
  const me = (await (await page.request.get('/api/auth/me')).json()) as { id: string };
  const href = await studyRow(page, 'CompressedSamples, CT1')
    .getByRole('link', { name: 'Get Analysis' })
    .getAttribute('href');
  const ctId = new URL(href!, 'http://localhost').searchParams.get('studyId')!;
  expect((await page.request.delete(`/api/studies/${me.id}/${ctId}`)).ok()).toBe(true);
  await studyRow(page, 'CompressedSamples, CT1').getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('menuitem', { name: 'Download', exact: true }).click();
  await expect(page.getByText('Download Error', { exact: true })).toBeVisible();
  await page.reload();
  await expect(studyRow(page, 'CompressedSamples, MR1')).toBeVisible();
  await expect(studyRow(page, 'CompressedSamples, CT1')).toHaveCount(0);

  await deleteFromRow(page, 'CompressedSamples, MR1');
});

test('a CD/DVD keeps only its DICOM files; the dashboard shows the study and its notification', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await registerPatient(page, uniqueEmail('cd'), 'Carla', 'Disc');
  const disc = path.join(fixtures, 'dicomdirtests', 'TINY_ALPHA');
  const images = listFiles(disc).filter((f) => f.includes('/IM'));
  expect(images).toHaveLength(50);

  await page.getByRole('link', { name: 'Upload New Study' }).click();
  await expect(page).toHaveURL(/\/upload\?backUrl=\/$/);
  await pickFromTile(page, 'CD/DVD', disc);
  // 50 images and the DICOMDIR; the disc's README is not DICOM and stays behind.
  await expect(page.getByText('You selected 51 file(s)')).toBeVisible();
  await page.getByRole('button', { name: 'Show files' }).click();
  await expect(page.getByRole('list', { name: 'Selected files' })).not.toContainText('README');
  await uploadAndReturnToStudies(page);

  const row = studyRow(page, 'Citizen, Jan');
  await expect(row).toBeVisible({ timeout: 90_000 });
  await expect(row.getByRole('cell').nth(1)).toHaveText('Testing File-set');
  await expect(row.getByRole('cell').nth(3)).toHaveText('CT');
  await expect(row.getByRole('cell').nth(5)).toHaveText('Sep 13, 2020');

  const entries = await downloadFromRow(page, 'Citizen, Jan');
  expect(digests(entries.values())).toEqual(digests(images.map((f) => readFileSync(path.join(disc, f)))));

  // Dashboard: counters, the study card, and the notification of the finished processing.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome back, Carla');
  await expect(page.getByLabel('Total Studies: 1')).toBeVisible();
  await expect(page.getByLabel('Pending Analysis: 0')).toBeVisible();
  await expect(page.getByLabel('Completed Analysis: 0')).toBeVisible();
  const cards = page.getByRole('list', { name: 'Studies' });
  const card = cards.getByRole('listitem').filter({ hasText: 'Citizen, Jan' });
  await expect(card).toContainText('Testing File-set');
  await expect(card).toContainText(formatDay(new Date()));
  await expect(card).toContainText('CT');
  await expect(card.getByRole('link', { name: 'View Study' })).toHaveAttribute(
    'href',
    /^\/studies\/transfer\/[^/]+$/,
  );
  await expect(card.getByRole('link', { name: 'Get Analysis' })).toHaveAttribute(
    'href',
    /action=getanalysis/,
  );
  await page.getByRole('searchbox', { name: 'Search studies' }).fill('no such study');
  await expect(page.getByText('No studies found')).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search studies' }).fill('citizen');
  await expect(card).toBeVisible();

  const notifications = page.getByRole('list', { name: 'Notifications' });
  await expect(notifications.getByRole('listitem')).toHaveCount(1);
  await page.getByRole('button', { name: 'User menu' }).click();
  await expect(page.getByRole('menuitem', { name: /Notifications/ })).toContainText('1');
  await page.keyboard.press('Escape');
  await notifications.getByRole('button', { name: /^Mark as read/ }).click();
  await expect(page.getByText('Notification marked as read', { exact: true })).toBeVisible();
  await expect(page.getByText('No unread notifications')).toBeVisible();
  await page.getByRole('button', { name: 'User menu' }).click();
  await expect(page.getByRole('menuitem', { name: 'Notifications' })).toHaveText('Notifications');
  await page.keyboard.press('Escape');

  await page.goto('/studies');
  await deleteFromRow(page, 'Citizen, Jan');
  await page.goto('/');
  await expect(page.getByLabel('Total Studies: 0')).toBeVisible();
});

test('HTML in DICOM text is shown as text, never run', async ({ page }) => {
  test.setTimeout(180_000);
  await registerPatient(page, uniqueEmail('html'));
  const dir = tempDir('html');
  const [file] = writeSeries(dir, 'S', 1, {
    patientName: '<img src=x onerror="window.__pwned=1">Evil^Name',
    studyDescription: '<b>Bold</b><script>window.__pwned=2</script>',
    modality: 'OT',
    studyDate: '20200101',
    studyUid: newUid(),
  });
  await page.goto('/upload');
  await pickFromTile(page, 'Select Files', file!);
  await uploadAndReturnToStudies(page);

  const row = studyRow(page, 'Evil, Name');
  await expect(row).toBeVisible({ timeout: 90_000 });
  await expect(row.getByRole('cell').nth(2)).toHaveText('<img src=x onerror="window.__pwned=1">Evil, Name');
  await expect(row.getByRole('cell').nth(1)).toHaveText('<b>Bold</b><script>window.__pwned=2</script>');
  await expect(row.locator('img[src="x"], [onerror], b, script')).toHaveCount(0);
  await row.getByRole('button', { name: 'Study information' }).click();
  await expect(page.getByRole('dialog', { name: 'Study Information' })).toContainText('<b>Bold</b>');
  await page.keyboard.press('Escape');
  await page.goto('/');
  await expect(page.getByRole('list', { name: 'Studies' })).toContainText('<img src=x');
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
});

test('the Shared Studies tab starts empty; an unknown tab shows My Studies', async ({ page }) => {
  await registerPatient(page, uniqueEmail('shared'));
  await page.goto('/studies?tab=shared_studies');
  await expect(page.getByRole('tab', { name: 'Shared Studies' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText('No shared studies found')).toBeVisible();
  await expect(page.getByText('Studies that other people share with you appear here.')).toBeVisible();
  await page.goto('/studies?tab=nonsense');
  await expect(page.getByRole('tab', { name: 'My Studies' })).toHaveAttribute('aria-selected', 'true');
});

test('on a phone My Studies shows each study as a card with its actions in reach, at 1280 px a table', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await registerPatient(page, uniqueEmail('phone'));
  const dir = tempDir('phone');
  // One word as long as DICOM allows most of a description to be: it must not widen the table.
  const description = 'Phone Card Study MultiplanarReconstructionOfTheCervicalSpine';
  writeSeries(dir, 'S1', 1, {
    patientName: 'Cardholder^Pat',
    studyDescription: description,
    modality: 'MR',
    studyDate: '20220515',
    studyUid: newUid(),
  });
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(
    page,
    'Select Files',
    listFiles(dir).map((f) => path.join(dir, f)),
  );
  await expect(page.getByText('You selected 1 file(s)')).toBeVisible();
  await uploadAndReturnToStudies(page);
  await expect(studyRow(page, description)).toBeVisible({ timeout: 90_000 });

  await page.setViewportSize({ width: 390, height: 844 });
  const cards = page.getByRole('list', { name: 'My studies' });
  const card = cards.getByRole('listitem').filter({ hasText: description });
  await expect(card).toBeVisible();
  await expect(page.getByRole('table')).toHaveCount(0);
  await expect(card.getByRole('heading', { name: description })).toBeVisible();
  await expect(card).toContainText('Cardholder, Pat');
  await expect(card).toContainText('May 15, 2022');
  await expect(card).toContainText('MR');
  await expect(card.locator('img')).toBeVisible(); // the thumbnail (decorative, alt='')
  await expect(page.getByRole('combobox', { name: 'Sort by' })).toBeVisible();
  // Scrolled down to the card (never sideways), every action is on the screen, none past its right edge.
  await card.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 72));
  expect(await page.evaluate(() => window.scrollX)).toBe(0);
  for (const name of ['Study information', 'Share study', 'Delete study', 'More actions']) {
    const button = card.getByRole('button', { name });
    await expect(button).toBeInViewport({ ratio: 1 });
    const box = (await button.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  await expect(card.getByRole('link', { name: 'Get Analysis' })).toBeInViewport({ ratio: 1 });
  expect(
    await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
  await page.screenshot({ path: test.info().outputPath('my-studies-390.png'), fullPage: true });
  await card.getByRole('button', { name: 'More actions' }).click();
  await expect(page.getByRole('menuitem', { name: 'Transfer Ownership' })).toBeInViewport();
  await page.keyboard.press('Escape');

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(studyRow(page, description)).toBeVisible();
  await expect(cards).toHaveCount(0);
  const table = page.getByRole('table', { name: 'My studies' });
  expect(
    await table.evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth),
  ).toBeLessThanOrEqual(0);
  await expect(studyRow(page, description).getByRole('button', { name: 'More actions' })).toBeInViewport({
    ratio: 1,
  });
  expect(
    await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
  await page.screenshot({ path: test.info().outputPath('my-studies-1280.png'), fullPage: true });
});
