import { closeSync, ftruncateSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from './a11y';
import {
  fileSize,
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

const megabytes = (file: string) => `${(fileSize(file) / (1024 * 1024)).toFixed(2)} MB`;

test('the upload page checks each selection with the spec messages', async ({ page }) => {
  await registerPatient(page, uniqueEmail('upload-rules'));
  await page.goto('/upload?backUrl=/studies');
  await expect(page.getByRole('heading', { name: 'Upload Medical Study' })).toBeVisible();
  for (const tile of ['Select Files', 'Select Folder', 'Upload ZIP', 'CD/DVD']) {
    await expect(page.getByRole('button', { name: tile })).toBeVisible();
  }

  await page.getByRole('button', { name: 'Upload Files' }).click();
  await expect(page.getByText('No Files Selected', { exact: true })).toBeVisible();

  // A disc without DICOM files: nothing is kept.
  const noDicom = tempDir('no-dicom');
  writeFileSync(path.join(noDicom, 'README.TXT'), 'Viewer software for this disc.\n'.repeat(20));
  writeFileSync(path.join(noDicom, 'IMAGE001'), Buffer.alloc(400, 7));
  await pickFromTile(page, 'CD/DVD', noDicom);
  await expect(page.getByText('No DICOM Files Found', { exact: true })).toBeVisible();
  await expect(
    page.getByText('Please select a CD/DVD containing DICOM files.', { exact: true }),
  ).toBeVisible();
  await expect(page.getByText(/You selected/)).toHaveCount(0);

  // Files: the list with sizes, Show/Hide, remove, Clear.
  const ct = path.join(fixtures, 'CT_small.dcm');
  const mr = path.join(fixtures, 'MR_small.dcm');
  await pickFromTile(page, 'Select Files', [ct, mr]);
  await expect(page.getByText('You selected 2 file(s)')).toBeVisible();
  const list = page.getByRole('list', { name: 'Selected files' });
  await expect(list).toHaveCount(0);
  await page.getByRole('button', { name: 'Show files' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await expect(list.getByRole('listitem').filter({ hasText: 'CT_small.dcm' })).toContainText(megabytes(ct));
  await expect(list.getByRole('listitem').filter({ hasText: 'MR_small.dcm' })).toContainText(megabytes(mr));
  await list.getByRole('button', { name: 'Remove CT_small.dcm' }).click();
  await expect(page.getByText('You selected 1 file(s)')).toBeVisible();
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await page.getByRole('button', { name: 'Hide files' }).click();
  await expect(list).toHaveCount(0);
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByText(/You selected/)).toHaveCount(0);

  // More than the 10 GB a new account may store (a sparse file: no disk space is used).
  const huge = path.join(tempDir('huge'), 'huge.dcm');
  const fd = openSync(huge, 'w');
  ftruncateSync(fd, 11 * 1024 ** 3);
  closeSync(fd);
  await pickFromTile(page, 'Select Files', huge);
  await expect(page.getByText('You selected 1 file(s)')).toBeVisible();
  await page.getByRole('button', { name: 'Upload Files' }).click();
  await expect(page.getByText('Storage Limit Exceeded', { exact: true })).toBeVisible();
  await expect(
    page.getByText('Uploading these files would exceed your storage limit of 10 GB.', { exact: true }),
  ).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await page.getByRole('button', { name: 'Go Back' }).click();
  await expect(page).toHaveURL(/\/studies$/);
});

test('the upload-only page has the upload tiles without the sidebar', async ({ page }) => {
  await registerPatient(page, uniqueEmail('upload-only'));
  await page.goto('/uploadOnly');
  await expect(page.getByRole('heading', { name: 'Upload Medical Study' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'CD/DVD' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Go Back' })).toHaveCount(0);
});

test('an upload interrupted by a page reload resumes where it stopped and finishes', async ({ page }) => {
  test.setTimeout(300_000);
  await registerPatient(page, uniqueEmail('resume'));
  // About 72 MB of real instances: big enough to reload in the middle of the upload.
  const dir = tempDir('resume');
  writeSeries(dir, 'SERIES1', 8, {
    patientName: 'Resume^Patient',
    studyDescription: 'Resumed Upload',
    modality: 'OT',
    studyDate: '20220202',
    studyUid: newUid(),
    pixelBytes: 9 * 1024 * 1024,
  });

  const tus: { method: string; url: string; offset?: string }[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/api/uploads')) {
      tus.push({ method: r.method(), url: r.url(), offset: r.headers()['upload-offset'] });
    }
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 20,
    downloadThroughput: -1,
    uploadThroughput: 3 * 1024 * 1024,
  });

  await page.goto('/upload');
  await pickFromTile(page, 'Select Folder', dir);
  await expect(page.getByText('You selected 8 file(s)')).toBeVisible();
  await page.getByRole('button', { name: 'Upload Files' }).click();
  // Behind the modal progress dialog the page's button reads 'Processing…'.
  await expect(page.getByRole('button', { name: 'Processing…', includeHidden: true })).toBeDisabled();
  const bar = page.getByRole('progressbar', { name: 'Uploading...' });
  await expect(bar).toBeVisible({ timeout: 30_000 });
  await expect
    .poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 120_000 })
    .toBeGreaterThanOrEqual(55);
  const created = tus.filter((r) => r.method === 'POST');
  expect(created).toHaveLength(1);

  await page.reload();
  tus.length = 0;
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  await pickFromTile(page, 'Select Folder', dir);
  await uploadAndReturnToStudies(page);

  // Resumed, not restarted: no new upload was created and the first chunk started past 0.
  expect(tus.filter((r) => r.method === 'POST')).toHaveLength(0);
  expect(tus.some((r) => r.method === 'HEAD')).toBe(true);
  const firstPatch = tus.find((r) => r.method === 'PATCH');
  expect(Number(firstPatch?.offset)).toBeGreaterThan(0);

  await expect(studyRow(page, 'Resume, Patient')).toBeVisible({ timeout: 120_000 });
  await expect(studyRow(page, 'Resume, Patient')).toContainText('Resumed Upload');
});
