import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Page } from '@playwright/test';
import { expect, test } from './a11y';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import {
  newUid,
  PASSWORD,
  pickFromTile,
  registerPatient,
  studyRow,
  tempDir,
  uniqueEmail,
  writeSeries,
} from './study-files';

/** Decodes the QR code of a `data:image/png` URL back to its text. */
function decodeQr(dataUrl: string): string | null {
  const png = PNG.sync.read(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}

async function readInviteUrl(page: Page): Promise<string> {
  await page.getByRole('tab', { name: 'Direct URL' }).click();
  const input = page.getByLabel('Your invite link');
  await expect(input).toHaveValue(/invite=/);
  return input.inputValue();
}

test('an invite link: QR code, widget on another site, and an upload that lands with the inviter', async ({
  browser,
  page,
  baseURL,
}) => {
  // User A: the Share & Embed page.
  await registerPatient(page, uniqueEmail('inviter'), 'Ada', 'Inviter');
  await page.goto('/share');
  await expect(page.getByRole('heading', { name: 'Share & Embed' })).toBeVisible();
  const inviteUrl = await readInviteUrl(page);
  const url = new URL(inviteUrl);
  expect(url.searchParams.get('mode')).toBe('direct_upload');
  expect(url.searchParams.get('invitedBy')).toBeTruthy();
  expect(url.searchParams.get('invite')).toMatch(/^[0-9a-f-]{36}\./);

  // The QR code, decoded here, is the invite link; 320 px wide.
  await page.getByRole('tab', { name: 'QR Code' }).click();
  const qr = page.getByRole('img', { name: 'QR code of your invite link' });
  await expect(qr).toBeVisible();
  const src = (await qr.getAttribute('src'))!;
  expect(PNG.sync.read(Buffer.from(src.split(',')[1]!, 'base64')).width).toBe(320);
  expect(decodeQr(src)).toBe(inviteUrl);
  await expect(page.getByRole('link', { name: 'Download PNG' })).toHaveAttribute('download', /\.png$/);

  // The widget: default blue, and its snippet works on a static page of another origin (file://).
  await page.getByRole('tab', { name: 'Embeddable Widget' }).click();
  const snippet = await page.getByLabel('HTML to paste into your website').inputValue();
  expect(snippet).toContain('#0066cc');
  expect(snippet).not.toContain('<script');
  await page.getByLabel('Style', { exact: true }).selectOption('card');
  await page.getByLabel('Text', { exact: true }).fill('Send <b>me</b> your scans');
  const card = await page.getByLabel('HTML to paste into your website').inputValue();
  expect(card).toContain('Send &lt;b&gt;me&lt;/b&gt; your scans');
  const preview = page.frameLocator('iframe[title="Widget preview"]');
  await expect(preview.getByRole('link')).toContainText('Send <b>me</b> your scans');
  const staticPage = path.join(tempDir('widget'), 'clinic.html');
  writeFileSync(
    staticPage,
    `<!doctype html><html><head><meta charset="utf-8"><title>Clinic</title></head><body><h1>Our clinic</h1>${card}</body></html>`,
  );
  const other = await page.context().newPage();
  await other.goto(pathToFileURL(staticPage).href);
  const widget = other.getByRole('link', { name: /Send <b>me<\/b> your scans/ });
  await expect(widget).toBeVisible();
  await expect(widget).toHaveAttribute('href', inviteUrl);
  const box = await widget.boundingBox();
  expect(box!.width).toBeGreaterThan(100);
  await other.close();

  // Revoking gives a new link; the page keeps working.
  await page.getByRole('tab', { name: 'Direct URL' }).click();
  await page.getByRole('button', { name: 'Revoke and create a new link' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke and create new link' }).click();
  await expect(page.getByLabel('Your invite link')).not.toHaveValue(inviteUrl);
  const oldUrl = inviteUrl;
  const liveUrl = await page.getByLabel('Your invite link').inputValue();

  // User B, in a browser of their own: the old link says it no longer works once signed in.
  const contextB = await browser.newContext({ baseURL });
  const pageB = await contextB.newPage();
  const liveLink = new URL(liveUrl);
  await pageB.goto(`${liveLink.pathname}${liveLink.search}`);
  await pageB.getByRole('link', { name: 'Register as a patient' }).click();
  await expect(pageB).toHaveURL(/\/register\/patient\?.*invite=/);
  await pageB.getByLabel('First Name').fill('Bob');
  await pageB.getByLabel('Last Name').fill('Invitee');
  await pageB.getByLabel('Email').fill(uniqueEmail('invitee'));
  await pageB.getByLabel('Mobile Phone').fill('+15550100');
  await pageB.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await pageB.getByLabel('Confirm Password').fill(PASSWORD);
  await pageB.getByLabel('I accept the terms and conditions').check();
  await pageB.getByRole('button', { name: 'Register' }).click();
  await expect(pageB).toHaveURL(/\/uploadOnly\?.*invitedBy=.*invite=/);
  await expect(pageB.getByText('Your files will be sent to Ada Inviter')).toBeVisible();

  const dir = tempDir('invited');
  const files = writeSeries(dir, 'series', 2, {
    studyUid: newUid(),
    patientName: 'Invited^Patient',
    studyDescription: 'Invited upload study',
    modality: 'MR',
    studyDate: '20240301',
  });
  await pickFromTile(pageB, 'Select Files', files);
  await pageB.getByRole('button', { name: 'Upload Files' }).click();
  await expect(pageB.getByRole('dialog').getByRole('heading', { name: 'Upload complete' })).toBeVisible({
    timeout: 60_000,
  });
  // B never sees A's studies: Back To Studies leads to B's dashboard, whose Recent Activity tells how
  // the upload ended.
  await pageB.getByRole('dialog').getByRole('button', { name: 'Back To Studies' }).click();
  await expect(pageB).toHaveURL(/\/$/);
  const welcome = pageB.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  if (
    await welcome
      .waitFor({ timeout: 5_000 })
      .then(() => true)
      .catch(() => false)
  )
    await welcome.getByRole('button', { name: 'Skip' }).click();
  await expect(pageB.getByText('Your upload was delivered')).toBeVisible({ timeout: 60_000 });
  await expect(
    pageB.getByText(/1 study with 2 images went to the account of the person who invited you/),
  ).toBeVisible();

  // The old, revoked link: a clear message, nothing to upload.
  const old = new URL(oldUrl);
  await pageB.goto(`/uploadOnly${old.search.replace('mode=direct_upload&', '')}`);
  await expect(pageB.getByText('This invitation can no longer be used')).toBeVisible();
  await expect(pageB.getByRole('button', { name: 'Upload Files' })).toHaveCount(0);
  await contextB.close();

  // A sees the study in My Studies.
  await expect(async () => {
    await page.goto('/studies');
    await expect(studyRow(page, 'Invited upload study')).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
});

test('Invite User sends an invitation by email', async ({ page }) => {
  await registerPatient(page, uniqueEmail('invite-user'));
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Invite User' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite User' });
  const send = dialog.getByRole('button', { name: 'Send Invitation' });
  await expect(send).toBeDisabled();
  await dialog.getByLabel('Email').fill('not-an-email');
  await expect(send).toBeDisabled();
  const friend = uniqueEmail('friend');
  await dialog.getByLabel('Email').fill(friend);
  await send.click();
  await expect(page.getByText('Success', { exact: true })).toBeVisible();
  await expect(page.getByText(`Invite sent to ${friend}`, { exact: true })).toBeVisible();
  await expect(dialog).toHaveCount(0);
});

test('Share & Embed fits a phone screen', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await registerPatient(page, uniqueEmail('share-phone'));
  await page.goto('/share');
  for (const tab of ['QR Code', 'Embeddable Widget', 'Direct URL']) {
    await page.getByRole('tab', { name: tab }).click();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${tab} overflows`).toBeLessThanOrEqual(360);
  }
  await page
    .getByRole('button', { name: 'Go Back' })
    .or(page.getByRole('link', { name: 'Go Back' }))
    .click();
  await expect(page).toHaveURL(/\/$/);
});
