import { expect, test } from './a11y';
import { canvasesWithImage } from '../canvas-image';
import { adminContext, offeringProfessional } from './professionals';
import { GOOD_CARD } from './checkout';
import { uploadGeneratedSeries, registerPatient, studyRow, uniqueEmail } from './study-files';

const appBase = () => process.env.E2E_BASE_URL!;
const viewerBase = () => process.env.E2E_VIEWER_URL!;

test('a study link with a passcode opens for someone without an account: report, images, receipt, notification; revoking stops their viewer', async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const admin = await adminContext(browser, appBase());
  const pro = await offeringProfessional(browser, appBase(), admin, { first: 'Rhea', last: 'Reader' });

  // The owner uploads a study.
  const ownerContext = await browser.newContext({ baseURL: appBase() });
  const page = await ownerContext.newPage();
  await registerPatient(page, uniqueEmail('link-owner'), 'Lina', 'Owner');
  const description = 'Linked phantom';
  const series = await uploadGeneratedSeries(page, 'links', {
    count: 4,
    size: 128,
    patientName: 'Link^Phantom',
    description,
  });
  await expect(studyRow(page, description)).toBeVisible({ timeout: 90_000 });
  const me = (await (await page.request.get('/api/auth/me')).json()) as { id: string };

  // A delivered report in the study: bought with the sandbox card, accepted and delivered.
  const studies = (await (await page.request.get(`/api/studies/user/${me.id}`)).json()).data as Array<{
    id: string;
    studyId: string | null;
  }>;
  const studyId = studies.find((s) => s.studyId === series.studyInstanceUid)!.id;
  const catalogue = (await (await page.request.get('/api/services')).json()) as Array<{
    id: string;
    name: string;
  }>;
  const intent = await page.request.post('/api/payments/create-payment-intent', {
    data: {
      serviceId: catalogue.find((s) => s.name === 'Expert Review')!.id,
      providerId: pro.providerId,
      studyId,
    },
  });
  expect(intent.ok(), await intent.text()).toBe(true);
  const paid = await page.request.post('/api/payments/sandbox/confirm', {
    data: {
      clientSecret: (await intent.json()).clientSecret,
      card: { number: GOOD_CARD, expiry: '12 / 34', cvc: '123', postalCode: '12345' },
    },
  });
  expect(paid.ok(), await paid.text()).toBe(true);
  const orderId = (await paid.json()).purchase.id as string;
  const proApi = pro.context.request;
  expect((await proApi.post(`/api/professional/orders/${orderId}/accept`)).ok()).toBe(true);
  const delivered = await proApi.post(`/api/professional/orders/${orderId}/deliver`, {
    data: { findings: 'No acute findings.', impression: 'Normal study.', recommendation: '' },
  });
  expect(delivered.ok(), await delivered.text()).toBe(true);

  // The owner makes a link for a week, with a passcode, from the row's menu.
  await page.goto('/studies');
  await studyRow(page, description).getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('menuitem', { name: 'Share by link / QR' }).click();
  // Sharing is off until the owner allows it: the dialog says so before anything is asked, and turns
  // it on right there.
  const consent = page
    .getByRole('dialog', { name: 'Share by link / QR' })
    .getByRole('region', { name: 'Sharing is turned off' });
  await expect(consent).toContainText('Your Share Medical Records setting is off, so no link can be made.');
  await consent.getByRole('button', { name: 'Turn On Share Medical Records' }).click();
  await expect(consent).toHaveCount(0);
  const dialog = page.getByRole('dialog', { name: 'Share by link / QR' });
  await dialog.getByLabel('Expires after').selectOption({ label: '7 days' });
  await dialog.getByRole('button', { name: 'Create link' }).click();
  await expect(dialog.getByText(/needs a passcode|required/i).first()).toBeVisible();
  await dialog.getByLabel(/^Passcode/).fill('tulip-42');
  await dialog.getByLabel(/^Label/).fill('For Dr Rivera');
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const ready = page.getByRole('dialog', { name: 'Your link is ready' });
  await expect(ready).toBeVisible();
  await expect(ready.locator('svg').first()).toBeVisible();
  const viewerUrl = await ready.getByLabel('Link', { exact: true }).inputValue();
  expect(viewerUrl).toMatch(/^https?:\/\/[^/]+\/shl#shlink:\/[A-Za-z0-9_-]+$/);
  await page.screenshot({ path: test.info().outputPath('link-ready.png') });
  await ready.getByRole('button', { name: 'Done' }).click();
  await expect(ready).toHaveCount(0);

  // Someone without an account opens it in another browser: name, passcode, the study and its report.
  const guestContext = await browser.newContext();
  const guest = await guestContext.newPage();
  await guest.goto(viewerUrl);
  await expect(guest.getByRole('heading', { name: 'For Dr Rivera' })).toBeVisible();
  await guest.getByLabel('Your name').fill('Dr Rivera <i>');
  await guest.getByLabel('Passcode').fill('wrong');
  await guest.getByRole('button', { name: 'Open studies' }).click();
  await expect(guest.getByText(/Wrong passcode\. 9 attempts left/)).toBeVisible();
  await guest.getByLabel('Passcode').fill('tulip-42');
  await guest.getByRole('button', { name: 'Open studies' }).click();
  await expect(guest.getByRole('heading', { name: description })).toBeVisible({ timeout: 20_000 });
  // The recipient's name is shown as text, never as markup.
  await expect(guest.locator('i', { hasText: 'Dr Rivera' })).toHaveCount(0);
  await expect(guest.locator('iframe[title$="(PDF)"]').first()).toBeVisible();
  await guest.screenshot({ path: test.info().outputPath('link-page.png'), fullPage: true });
  await guest.setViewportSize({ width: 390, height: 844 });
  expect(
    await guest.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
  await guest.screenshot({ path: test.info().outputPath('link-page-390.png'), fullPage: true });
  await guest.setViewportSize({ width: 1280, height: 720 });
  // Downloads were not allowed for this link.
  await guest.getByRole('button', { name: 'Download' }).first().click();
  await expect(guest.getByText('The patient has not allowed downloading these images.')).toBeVisible();
  await guest.reload();
  // The name is offered again on this device; the passcode is not.
  await expect(guest.getByLabel('Your name')).toHaveValue('Dr Rivera <i>');
  await guest.getByLabel('Passcode').fill('tulip-42');
  await guest.getByRole('button', { name: 'Open studies' }).click();
  await expect(guest.getByRole('heading', { name: description })).toBeVisible({ timeout: 20_000 });

  // The images open in the viewer, drawn.
  const popup = guest.waitForEvent('popup');
  await guest.getByRole('button', { name: 'Open images' }).first().click();
  const viewer = await popup;
  await viewer.waitForURL((u) => u.href.startsWith(`${viewerBase()}/viewer`), { timeout: 60_000 });
  await expect.poll(() => viewer.evaluate(canvasesWithImage), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);

  // The owner sees the receipt and was notified.
  await studyRow(page, description).getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('menuitem', { name: 'Access & activity' }).click();
  const receipts = page.getByRole('dialog', { name: 'Access & activity' });
  const activity = receipts.getByRole('list', { name: 'Activity' });
  await expect(activity).toContainText('Opened by link');
  await expect(activity).toContainText('Dr Rivera <i> (by link)');
  await expect(activity).toContainText('Wrong link passcode');
  await page.keyboard.press('Escape');
  await page.goto('/notifications');
  await expect(page.getByText('Your study link was opened').first()).toBeVisible();

  // The owner revokes it on the Links page; the recipient's open viewer stops.
  await page.goto('/links');
  await page
    .getByRole('button', { name: /^Revoke link/ })
    .first()
    .click();
  await page
    .getByRole('dialog', { name: 'Revoke this link?' })
    .getByRole('button', { name: 'Revoke link' })
    .click();
  await expect(page.getByText('Revoked').first()).toBeVisible();
  await viewer.reload();
  await expect(
    viewer.getByText(/This viewer link has expired|requested studies are not available/).first(),
  ).toBeVisible({
    timeout: 20_000,
  });
  expect(await viewer.evaluate(canvasesWithImage)).toBe(0);
  // The page still open says the link ended when Download is tried, not that downloads are off.
  await guest.getByRole('button', { name: 'Download' }).first().click();
  await expect(guest.getByText('The studies can no longer be opened')).toBeVisible();
  await expect(guest.getByText(/Available until/)).toHaveCount(0);
  await guest.reload();
  await guest.getByLabel('Your name').fill('Dr Rivera');
  await guest.getByLabel('Passcode').fill('tulip-42');
  await guest.getByRole('button', { name: 'Open studies' }).click();
  await expect(guest.getByText('This link has expired, was revoked or does not exist.')).toBeVisible();
});
