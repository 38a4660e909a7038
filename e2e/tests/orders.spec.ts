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
} from './study-files';
import { buy, chooseStudy, fillCard, providerRow } from './checkout';

/** Picks a small study of one modality on the upload page, uploads it and waits for its row in My Studies. */
async function uploadPicked(page: Page, description: string, modality = 'CT') {
  const dir = tempDir('orders');
  const files = writeSeries(dir, modality.toLowerCase(), 3, {
    patientName: 'Order^Patient',
    studyDescription: description,
    modality,
    studyDate: '20240301',
    studyUid: newUid(),
  });
  await pickFromTile(page, 'Select Files', files);
  await uploadAndReturnToStudies(page);
  const row = studyRow(page, description);
  await expect(row).toBeVisible({ timeout: 90_000 });
  return row;
}

/** Uploads a small CT study (or another modality) and waits for its row in My Studies. */
async function uploadCtStudy(page: Page, description: string, modality = 'CT') {
  await page.goto('/upload?backUrl=/studies');
  return uploadPicked(page, description, modality);
}

/** The page does not scroll sideways: nothing is wider than the window. */
async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/** Opens Expert Review's providers and 'Purchase' of the one named so, then fills the card form. */
async function startExpertReviewPurchase(page: Page, provider: string, cardNumber: string) {
  await (
    await providerRow(page, 'Expert Review', provider)
  )
    .getByRole('button', { name: 'Purchase' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
  await fillCard(dialog, cardNumber);
  return dialog;
}

test('a patient buys Expert Review for a study with a card; a declined card creates nothing', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(240_000);
  // The professional the patient buys from: verified, published, offering Expert Review.
  const admin = await adminContext(browser, baseURL!);
  const pro = await offeringProfessional(browser, baseURL!, admin, { first: 'Olivia', last: 'Okonkwo' }, [
    'Expert Review',
  ]);
  await pro.context.close();
  await admin.close();

  await registerPatient(page, uniqueEmail('orders'), 'Olga', 'Buyer');
  const description = `Order CT ${Date.now()}`;
  const row = await uploadCtStudy(page, description);

  // 'Get Analysis' on the study opens Available Services with the banner.
  await row.getByRole('link', { name: 'Get Analysis' }).click();
  await expect(page).toHaveURL(/\/services\/available\?action=getanalysis/);
  await expect(page.getByText(/You are purchasing an analysis for the study/)).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Expert Review', exact: true }).first()).toBeVisible();

  // A declined card: its message, and nothing bought.
  let dialog = await startExpertReviewPurchase(page, pro.name, '4000 0000 0000 0002');
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Your card was declined.');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.goto('/billing');
  await expect(page.getByText('No transactions found')).toBeVisible();

  // 4242: paid, and listed in Purchased Services.
  await page.goto('/services/available');
  const price = await (
    await providerRow(page, 'Expert Review', pro.name)
  )
    .getByRole('cell')
    .nth(4)
    .innerText();
  expect(price).toMatch(/^\$\d+\.\d{2}$/);
  dialog = await startExpertReviewPurchase(page, pro.name, '4242 4242 4242 4242');
  await chooseStudy(dialog, description);
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

test('an order whose study lacks the modality gets another study attached; declined, it shows its refund', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(300_000);
  // The professional who will decline: they offer Expert Review at its list price.
  const admin = await adminContext(browser, baseURL!);
  const pro = await offeringProfessional(browser, baseURL!, admin, { first: 'Desmond', last: 'Declan' }, [
    'Expert Review',
  ]);
  const expertReview = async () =>
    (
      (await (await admin.request.get('/api/services')).json()) as Array<{
        name: string;
        providers: Array<{ id: string; name: string; price: number }>;
      }>
    ).find((s) => s.name === 'Expert Review')!;
  const offer = (await expertReview()).providers.find((p) => p.id === pro.providerId)!;
  expect(offer, 'the professional’s offer is on sale').toBeTruthy();
  expect(offer.name).toBe(pro.name);
  const price = `$${offer.price.toFixed(2)}`;

  await registerPatient(page, uniqueEmail('attach'), 'Ada', 'Attach');
  const mr = `Attach MR ${Date.now()}`;
  await uploadCtStudy(page, mr, 'MR');

  // Expert Review reads X-Ray and CT: bought for the MR study, it waits for data, as the dialog
  // says before payment.
  await buy(
    page,
    'Expert Review',
    pro.name,
    mr,
    /needs a .*CT study\. If you pay for this one, the order waits/,
  );
  const row = page.getByRole('row', { name: /Expert Review/ });
  await expect(row).toContainText('Upload Required Data');
  await expect(row.getByRole('img', { name: 'Upload required data' })).toBeVisible();
  await expect(row).toHaveClass(/bg-blue-50/);

  // The dialog says what the service needs; the MR study is marked as not fitting.
  await row.getByRole('button', { name: 'Attach Study' }).click();
  let dialog = page.getByRole('dialog', { name: 'Upload Required Data' });
  await expect(dialog).toContainText('This service needs a X-Ray, CT study.');
  await expect(dialog).toContainText('Supported modalities: X-Ray, CT');
  await expect(dialog.getByRole('radio', { name: new RegExp(mr) })).toBeDisabled();
  await expect(dialog.getByRole('radio', { name: new RegExp(mr) })).toHaveAccessibleName(
    /Does not fit: This service needs a X-Ray, CT study\./,
  );
  await expect(dialog.getByRole('button', { name: 'Attach Study' })).toBeDisabled();

  // 'Upload a new study' leads to the upload page, whose Go Back returns to this dialog.
  await dialog.getByRole('link', { name: 'Upload a new study' }).click();
  await expect(page).toHaveURL(/\/upload\?backUrl=/);
  const back = new URL(page.url()).searchParams.get('backUrl')!;
  expect(back).toMatch(/^\/services\/purchased\?attach=/);
  const ct = `Attach CT ${Date.now()}`;
  await uploadPicked(page, ct, 'CT');
  await page.goto(back);
  dialog = page.getByRole('dialog', { name: 'Upload Required Data' });
  await expect(dialog.getByRole('radio', { name: new RegExp(ct) })).toBeEnabled();
  await dialog.getByRole('radio', { name: new RegExp(ct) }).check();
  await dialog.getByRole('button', { name: 'Attach Study' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(/\/services\/purchased$/);
  await expect(row).toContainText('Pending Provider Approval');
  await expect(row.getByRole('button', { name: 'Attach Study' })).toHaveCount(0);
  await expect(row).not.toHaveClass(/bg-blue-50/);

  // Asked again for an order no longer waiting for data, the server answers 409 with its message.
  const orderId = back.split('attach=')[1]!;
  const again = await page.request.post(`/api/orders/${orderId}/study`, { data: { studyId: orderId } });
  expect(again.status()).toBe(409);

  // The professional declines: the order is refunded in full.
  await pro.page.goto('/professional/orders');
  const order = pro.page.getByRole('listitem').filter({ hasText: 'Expert Review' }).first();
  await order.getByRole('button', { name: 'Decline' }).click();
  await pro.page.getByRole('alertdialog').getByRole('button', { name: 'Decline and Refund' }).click();
  await expect(pro.page.getByText('Order Declined', { exact: true })).toBeVisible();

  await page.reload();
  await expect(row).toContainText('Refunded');
  const today = await page.evaluate(() => {
    const d = new Date();
    return `${d.toLocaleString('en-US', { month: 'short' })} ${String(d.getDate()).padStart(2, '0')}, ${d.getFullYear()}`;
  });
  await expect(row).toContainText(`Refunded ${price} on ${today}`);

  // Transaction History: the charge, and the refund as a line of its own with a negative amount.
  await page.goto('/billing');
  const lines = page.getByRole('table', { name: 'Transactions' }).getByRole('row', { name: /Expert Review/ });
  await expect(lines).toHaveCount(2);
  await expect(lines.nth(0)).toContainText(`Refund: Expert Review`);
  await expect(lines.nth(0)).toContainText(`-${price}`);
  await expect(lines.nth(0)).toContainText('visa •••• 4242');
  await expect(lines.nth(1)).toContainText(price);
  await expect(lines.nth(1)).toContainText('Refunded');
  await page.getByLabel('Status').selectOption('refunded');
  await expect(lines).toHaveCount(2);

  // On a phone the same pages are cards, and nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('table', { name: 'Transactions' })).toHaveCount(0);
  const cards = page.getByRole('list', { name: 'Transactions' }).getByRole('listitem');
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0)).toContainText(`-${price}`);
  await expectNoSidewaysScroll(page);
  await page.goto('/services/purchased');
  const card = page.getByRole('list', { name: 'Purchased services' }).getByRole('listitem');
  await expect(card).toHaveCount(1);
  await expect(card).toContainText(`Refunded ${price} on ${today}`);
  await expectNoSidewaysScroll(page);
  await page.goto('/services/available');
  await page.getByRole('button', { name: 'Details and providers of Expert Review' }).click();
  const sellers = page.getByRole('list', { name: 'Providers of Expert Review' }).getByRole('listitem');
  await expect(sellers).toHaveCount((await expertReview()).providers.length);
  await expect(sellers.filter({ hasText: pro.name }).getByRole('button', { name: 'Purchase' })).toBeVisible();
  await expectNoSidewaysScroll(page);

  await pro.context.close();
  await admin.close();
});

test('on a 390 px phone the order pages are cards, nothing is cut off and nothing scrolls sideways', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await registerPatient(page, uniqueEmail('orders-phone'));

  // The empty Transaction History says so in full, inside the window.
  await page.goto('/billing');
  const empty = page.getByText('No transactions found');
  await expect(empty).toBeVisible();
  const box = (await empty.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(await empty.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
  await expectNoSidewaysScroll(page);

  await page.goto('/services/purchased');
  await expect(page.getByText('No purchased services found')).toBeVisible();
  await expectNoSidewaysScroll(page);

  // Available Services: a card per service, sorted with a select instead of column headings.
  await page.goto('/services/available');
  const services = page.getByRole('list', { name: 'Available services' });
  await expect(services.getByRole('listitem').first()).toBeVisible();
  await expect(page.getByRole('table')).toHaveCount(0);
  const catalogue = (await (await page.request.get('/api/services')).json()) as Array<{
    name: string;
    providers: Array<{ price: number }>;
  }>;
  const lowest = (s: (typeof catalogue)[number]) => Math.min(...s.providers.map((p) => p.price));
  const dearest = catalogue.reduce((a, b) => (lowest(b) > lowest(a) ? b : a));
  await page.getByLabel('Sort by').selectOption('price:desc');
  await expect(services.getByRole('listitem').first()).toContainText(dearest.name);
  await page.getByRole('button', { name: `Details and providers of ${dearest.name}` }).click();
  await expect(
    page.getByRole('list', { name: `Providers of ${dearest.name}` }).getByRole('listitem'),
  ).toHaveCount(dearest.providers.length);
  await expectNoSidewaysScroll(page);

  await page.goto('/analysis/services');
  await expect(page.getByRole('button', { name: 'Order Now' }).first()).toBeVisible();
  await expectNoSidewaysScroll(page);

  // Wide again, the tables are back.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/services/available');
  await expect(page.getByRole('table', { name: 'Available services' })).toBeVisible();
});
