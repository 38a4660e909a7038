import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { generateSeries } from '../../apps/server/test/helpers/dicom-series';
import { pickFromTile, registerPatient, studyRow, tempDir, uploadAndReturnToStudies } from './study-files';

const OUT = '/tmp/help-shots';
mkdirSync(OUT, { recursive: true });

async function save(name: string, png: Buffer) {
  writeFileSync(path.join(OUT, `${name}.png`), png);
  const webp = await sharp(png).webp({ quality: 80, effort: 6 }).toBuffer();
  writeFileSync(path.join(OUT, `${name}.webp`), webp);
}

/** A screenshot of the union of the boxes, with a margin, clipped to the viewport. */
async function shotOf(page: Page, boxes: Array<{ x: number; y: number; width: number; height: number }>, pad = 16) {
  const vp = page.viewportSize()!;
  const x0 = Math.max(0, Math.min(...boxes.map((b) => b.x)) - pad);
  const y0 = Math.max(0, Math.min(...boxes.map((b) => b.y)) - pad);
  const x1 = Math.min(vp.width, Math.max(...boxes.map((b) => b.x + b.width)) + pad);
  const y1 = Math.min(vp.height, Math.max(...boxes.map((b) => b.y + b.height)) + pad);
  return page.screenshot({ clip: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, animations: 'disabled' });
}

test.use({ viewport: { width: 1280, height: 800 }, actionTimeout: 15_000 });

test('help screenshots', async ({ page }) => {
  test.setTimeout(300_000);
  await registerPatient(page, 'jane.doe@example.com', 'Jane', 'Doe');

  const dir = tempDir('shots');
  const series = generateSeries({ count: 6, size: 128, patientName: 'Doe^Jane', description: 'CT Chest' });
  const files = series.files.map((f, i) => {
    const file = path.join(dir, `IM${String(i + 1).padStart(4, '0')}.dcm`);
    writeFileSync(file, f.bytes);
    return file;
  });
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', files);
  await uploadAndReturnToStudies(page);
  await expect(studyRow(page, 'CT Chest')).toBeVisible({ timeout: 90_000 });

  // Settings → Privacy & Sharing with Share Medical Records.
  await page.goto('/settings');
  await page.getByRole('tab', { name: 'Privacy & Sharing' }).click();
  const toggle = page.getByRole('switch', { name: 'Share Medical Records' });
  await toggle.click();
  await expect(toggle).toBeChecked();
  await page.waitForTimeout(5500); // let the toast go
  const tabs = (await page.getByRole('tablist').boundingBox())!;
  const sessions = (await page.getByRole('heading', { name: 'Active sessions' }).boundingBox())!;
  const panel = (await page.getByRole('tabpanel').boundingBox())!;
  await save(
    'privacy-sharing',
    await shotOf(page, [tabs, { x: panel.x, y: tabs.y, width: panel.width, height: sessions.y - 42 - tabs.y }]),
  );

  // Share a study with a doctor, so the dialogs have something to show.
  await page.goto('/studies');
  await studyRow(page, 'CT Chest').getByRole('button', { name: 'Share study' }).click();
  let dialog = page.getByRole('dialog', { name: 'Share Study' });
  const field = dialog.getByRole('combobox', { name: 'Email' });
  await field.fill('dr.adams@example.org');
  await field.press('Enter');
  await dialog.getByRole('button', { name: 'Share Study' }).click();
  await expect(dialog).toHaveCount(0);
  await page.waitForTimeout(5500);

  // The Share Study dialog: one current recipient, one about to be added.
  await studyRow(page, 'CT Chest').getByRole('button', { name: 'Share study' }).click();
  dialog = page.getByRole('dialog', { name: 'Share Study' });
  await expect(dialog.getByRole('list', { name: 'Currently Shared With' })).toContainText('dr.adams@example.org');
  await dialog.getByRole('combobox', { name: 'Email' }).fill('clinic@example.net');
  await dialog.getByRole('combobox', { name: 'Email' }).press('Enter');
  await dialog.getByRole('heading', { name: 'Share Study' }).click();
  await page.mouse.move(0, 0);
  await page.waitForTimeout(500);
  await save('share-study', await dialog.screenshot({ animations: 'disabled' }));
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await page.screenshot({ path: path.join(OUT, 'after-share.png') });

  // My Studies with its More actions menu.
  const row = studyRow(page, 'CT Chest');
  const tableBox = (await page.locator('table').first().boundingBox())!;
  await row.getByRole('button', { name: 'More actions' }).click();
  const menu = page.getByRole('menu');
  await expect(menu).toBeVisible();
  await page.waitForTimeout(400);
  await save('my-studies-menu', await shotOf(page, [tableBox, (await menu.boundingBox())!]));

  // Access & activity.
  await page.getByRole('menuitem', { name: 'Access & activity' }).click();
  const receipts = page.getByRole('dialog', { name: 'Access & activity' });
  await expect(receipts.getByRole('list', { name: 'Who can open this study' })).toContainText('dr.adams@example.org');
  await page.waitForTimeout(500);
  await save('access-activity', await receipts.screenshot({ animations: 'disabled' }));
  await page.keyboard.press('Escape');

  // Share & Embed, QR Code tab.
  await page.goto('/share');
  await expect(page.getByRole('heading', { name: 'Share & Embed' })).toBeVisible();
  await page.getByRole('tab', { name: 'QR Code' }).click();
  await expect(page.getByRole('img', { name: 'QR code of your invite link' })).toBeVisible();
  await page.waitForTimeout(500);
  const header = (await page.getByRole('heading', { name: 'Share & Embed' }).boundingBox())!;
  const main = (await page.locator('main').boundingBox())!;
  const download = (await page.getByRole('button', { name: 'Download PNG' }).boundingBox())!;
  await save(
    'share-embed-qr',
    await shotOf(page, [{ x: main.x + 16, y: header.y, width: main.width - 32, height: download.y + download.height + 8 - header.y }]),
  );
  await page.screenshot({ path: path.join(OUT, 'full-share.png'), fullPage: true });
});
