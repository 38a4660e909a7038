import { type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { canvasesWithImage } from '../canvas-image';
import { PASSWORD, registerPatient, uploadGeneratedSeries, studyRow, uniqueEmail } from './study-files';

const appBase = () => process.env.E2E_BASE_URL!;
const viewerBase = () => process.env.E2E_VIEWER_URL!;

interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** The admin's view of the outbox (Admin → Outbox), where every email of the app lands in tests. */
async function adminContext(browser: Browser) {
  const context = await browser.newContext({ baseURL: appBase() });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Email').fill(process.env.E2E_ADMIN_EMAIL!);
  await page.getByLabel('Password', { exact: true }).fill(process.env.E2E_ADMIN_PASSWORD!);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();
  return context;
}

/** The first outbox message to `to` whose text matches, waiting for it to be written. */
async function mailTo(admin: BrowserContext, to: string, text: RegExp): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        const res = await admin.request.get('/api/admin/outbox');
        const messages = (await res.json()).data as Mail[];
        found = messages.find((m) => m.to === to && text.test(m.text));
        return !!found;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  return found!;
}

/** The app path (with query) of the first link of `mail` that matches. */
function linkIn(mail: Mail, pattern: RegExp): string {
  const href = new RegExp(`(http\\S*${pattern.source}\\S*)`).exec(mail.text)?.[1];
  expect(href, `a link matching ${pattern} in "${mail.subject}"`).toBeTruthy();
  const url = new URL(href!);
  return url.pathname + url.search;
}

/** A new account in its own browser context. */
async function newUser(browser: Browser, tag: string, first: string, last: string) {
  const context = await browser.newContext({ baseURL: appBase() });
  const page = await context.newPage();
  const email = uniqueEmail(tag);
  await registerPatient(page, email, first, last);
  return { context, page, email };
}

/** Follows the confirmation link of the welcome email, so shares and transfers reach the account. */
async function confirmEmail(page: Page, admin: BrowserContext, email: string) {
  const mail = await mailTo(admin, email, /verify-email/);
  await page.goto(linkIn(mail, /\/verify-email/));
  await expect(page.getByText('Your email address has been verified.')).toBeVisible();
}

/** Settings → Privacy & Sharing → Share Medical Records on. */
async function allowSharing(page: Page) {
  await page.goto('/settings');
  await page.getByRole('tab', { name: 'Privacy & Sharing' }).click();
  const toggle = page.getByRole('switch', { name: 'Share Medical Records' });
  await toggle.click();
  await expect(toggle).toBeChecked();
  await expectToast(page, 'Update Completed', 'Share medical records preference updated.');
}

/** Generates a drawable series and uploads it from My Studies; returns its row. */
async function uploadStudy(page: Page, tag: string, patientName: string, description: string) {
  await uploadGeneratedSeries(page, tag, { count: 4, size: 128, patientName, description });
  const row = studyRow(page, description);
  await expect(row).toBeVisible({ timeout: 90_000 });
  return row;
}

async function openRowMenu(page: Page, rowText: string, item: string) {
  await studyRow(page, rowText).getByRole('button', { name: 'More actions' }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

/** The toast on screen (not the screen reader's copy of it) with this title. */
async function expectToast(page: Page, title: string, description?: string) {
  const toast = page.locator('li[data-state="open"]').filter({ has: page.getByText(title, { exact: true }) });
  await expect(toast).toBeVisible();
  if (description) await expect(toast).toContainText(description);
}

test('share by email with a confirmed account: it views the study, the owner sees the receipt, revokes, then transfers ownership', async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const admin = await adminContext(browser);
  const owner = await newUser(browser, 'share-owner', 'Olive', 'Owner');
  const reader = await newUser(browser, 'share-reader', 'Rita', 'Reader');
  await confirmEmail(reader.page, admin, reader.email);

  const description = 'Shared phantom';
  await uploadStudy(owner.page, 'share', 'Share^Phantom', description);
  const page = owner.page;
  // Sharing is off until the owner allows it: the dialog says why, what turning it on allows, and
  // turns it on right there.
  await studyRow(page, description).getByRole('button', { name: 'Share study' }).click();
  let dialog = page.getByRole('dialog', { name: 'Share Study' });
  const consent = dialog.getByRole('region', { name: 'Sharing is turned off' });
  await expect(consent).toContainText('Sharing is turned off');
  await expect(consent).toContainText(
    'Your Share Medical Records setting is off, so this study cannot be shared.',
  );
  await expect(consent).toContainText(
    'the people and providers you choose to view the studies you share with them',
  );
  await expect(consent).toContainText('Settings → Privacy & Sharing');
  await expect(dialog.getByRole('button', { name: 'Share Study' })).toBeDisabled();
  await expect(dialog.getByRole('combobox', { name: 'Email' })).toBeDisabled();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('share-consent-phone.png') });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.screenshot({ path: test.info().outputPath('share-consent.png') });
  await dialog.getByRole('button', { name: 'Turn On Share Medical Records' }).click();
  await expectToast(page, 'Update Completed', 'Share medical records preference updated.');
  await expect(dialog.getByText('Sharing is turned off')).toHaveCount(0);
  // The same consent as in Settings.
  expect((await (await page.request.get('/api/auth/me')).json()).shareMedicalData).toBe(true);

  const field = dialog.getByRole('combobox', { name: 'Email' });
  await expect(field).toBeEnabled();
  await expect(field).toHaveAttribute('placeholder', 'doctor@example.com');
  await expect(dialog).toContainText(
    'Start typing to see provider suggestions or enter any email address to add',
  );
  await expect(dialog.getByRole('button', { name: 'Share Study' })).toBeDisabled();
  await field.fill('nobody-here');
  await expect(dialog).toContainText('No providers found. Enter a valid email address to add it.');
  await field.fill(reader.email);
  await expect(dialog.getByRole('option', { name: `Share with ${reader.email}` })).toContainText(
    'Add custom email address',
  );
  await field.press('Enter');
  await expect(dialog.getByRole('list', { name: 'Selected recipients' })).toContainText(reader.email);
  await expect(dialog).toContainText('Continue typing to add more providers or email addresses');
  await dialog.getByRole('button', { name: 'Share Study' }).click();
  await expect(dialog).toHaveCount(0);
  await expectToast(page, 'Study Shared', `You invited ${reader.email} to view your study`);

  // The reader finds it under Shared Studies, with who shared it, and opens it in the viewer.
  const rp = reader.page;
  await rp.goto('/studies?tab=shared_studies');
  await expect(rp.getByRole('tab', { name: 'Shared Studies' })).toHaveAttribute('aria-selected', 'true');
  const sharedRow = studyRow(rp, description);
  await expect(sharedRow).toBeVisible();
  await expect(sharedRow).toContainText('Olive Owner');
  // The table with its Shared By column fits beside the sidebar at 1280 px.
  const sharedTable = rp.getByRole('table', { name: 'Studies shared with you' });
  expect(
    await sharedTable.evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth),
  ).toBeLessThanOrEqual(0);
  expect(
    await rp.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
  // On a phone the same study is a card, who shared it and its actions within the screen.
  await rp.setViewportSize({ width: 390, height: 844 });
  const sharedCard = rp
    .getByRole('list', { name: 'Studies shared with you' })
    .getByRole('listitem')
    .filter({ hasText: description });
  await expect(sharedCard).toContainText('Shared by Olive Owner');
  await expect(sharedCard.getByRole('button', { name: 'More actions' })).toBeInViewport({ ratio: 1 });
  expect(
    await rp.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth),
  ).toBeLessThanOrEqual(0);
  await rp.screenshot({ path: test.info().outputPath('shared-studies-390.png'), fullPage: true });
  await rp.setViewportSize({ width: 1280, height: 720 });
  await expect(sharedRow.getByRole('button', { name: 'Share study' })).toHaveCount(0);
  await expect(sharedRow.getByRole('button', { name: 'Delete study' })).toHaveCount(0);
  await sharedRow.getByRole('button', { name: 'More actions' }).click();
  await expect(rp.getByRole('menuitem', { name: 'Download', exact: true })).toHaveCount(0);
  await expect(rp.getByRole('menuitem', { name: 'Transfer Ownership' })).toHaveCount(0);
  await expect(rp.getByRole('menuitem', { name: 'Request Ownership' })).toBeVisible();
  const popup = rp.waitForEvent('popup');
  await rp.getByRole('menuitem', { name: 'View' }).click();
  const viewer = await popup;
  await viewer.waitForURL(/\/studies\/transfer\//, { timeout: 10_000 }).catch(() => undefined);
  const studyId = /\/studies\/transfer\/([^/?#]+)/.exec(viewer.url())?.[1] ?? '';
  expect(studyId).not.toBe('');
  await viewer.waitForURL((u) => u.href.startsWith(`${viewerBase()}/viewer`), { timeout: 60_000 });
  await expect.poll(() => viewer.evaluate(canvasesWithImage), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);

  // The owner's receipts list the reader's open.
  await page.goto('/studies');
  await openRowMenu(page, description, 'Access & activity');
  const receipts = page.getByRole('dialog', { name: 'Access & activity' });
  const who = receipts.getByRole('list', { name: 'Who can open this study' });
  await expect(who).toContainText(reader.email);
  await expect(who).toContainText(/Opened \w{3} \d{2}, \d{4}/);
  await expect(receipts.getByRole('list', { name: 'Activity' })).toContainText('Opened in the viewer');
  await page.keyboard.press('Escape');

  // Revoking: the list reloads without the reader, who loses the study everywhere.
  await studyRow(page, description).getByRole('button', { name: 'Share study' }).click();
  dialog = page.getByRole('dialog', { name: 'Share Study' });
  const current = dialog.getByRole('list', { name: 'Currently Shared With' });
  await expect(current).toContainText(reader.email);
  await expect(current).toContainText(/Shared on: \w{3} \d{2}, \d{4}/);
  await current.getByRole('button', { name: /Revoke Access/ }).click();
  await expectToast(page, 'Access Removed', 'Provider access revoked.');
  await expect(dialog).toContainText('Not shared with anyone yet.');
  // The address joined the owner's providers: it is suggested, and filtering finds it.
  await dialog.getByRole('combobox', { name: 'Email' }).click();
  await expect(dialog).toContainText('All your providers:');
  await dialog.getByRole('combobox', { name: 'Email' }).fill(reader.email.slice(0, 10).toUpperCase());
  await expect(dialog).toContainText('Filtered suggestions:');
  await expect(dialog.getByRole('option', { name: new RegExp(reader.email) }).first()).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // Shared again from the row's menu through the Healthcare Providers page, where the reader is one of
  // the owner's providers; then revoked from that provider's shared studies.
  await openRowMenu(page, description, 'Share with a Provider');
  await expect(page).toHaveURL(/\/providers\?studyId=/);
  await expect(page.getByText('Please choose your provider to share the study.')).toBeVisible();
  await page.getByRole('button', { name: /^Share Study with / }).click();
  await expectToast(page, 'Study Shared', `You invited ${reader.email} to view your study`);
  await expect(page).toHaveURL(/\/studies$/);
  await rp.goto('/studies?tab=shared_studies');
  await expect(studyRow(rp, description)).toBeVisible();
  await page.goto('/providers');
  await page.getByRole('button', { name: /^View Shared Studies with / }).click();
  const sharedWith = page.getByRole('dialog', { name: 'Shared Studies' });
  await expect(sharedWith.getByRole('list', { name: 'Shared studies' })).toContainText(description);
  await sharedWith.getByRole('button', { name: `Revoke ${description}` }).click();
  await expectToast(page, 'Share Removed');
  await expect(sharedWith).toContainText('No studies have been shared with this provider yet.');
  await page.keyboard.press('Escape');
  await page.goto('/studies');

  await rp.goto('/studies?tab=shared_studies');
  await expect(rp.getByText('No shared studies found')).toBeVisible();
  // The open viewer tab shows nothing more: its link ends, or the study is no longer there.
  await viewer.reload();
  await expect(
    viewer.getByText(/This viewer link has expired|requested studies are not available/).first(),
  ).toBeVisible({ timeout: 20_000 });
  expect(await viewer.evaluate(canvasesWithImage)).toBe(0);
  expect((await rp.request.get(`/api/dicom/viewer/${studyId}`)).status()).toBe(404);
  expect((await rp.request.get(`/api/studies/study/${studyId}`)).status()).toBe(404);

  // Transfer Ownership by email: the study leaves the owner's list and is the reader's.
  await openRowMenu(page, description, 'Transfer Ownership');
  const transfer = page.getByRole('dialog', { name: 'Enter Email to transfer ownership' });
  const email = transfer.getByLabel('Email');
  const go = transfer.getByRole('button', { name: 'Transfer' });
  await expect(go).toBeDisabled();
  await email.focus();
  await email.blur();
  await expect(transfer).toContainText('Email is required');
  await email.fill('not-an-email');
  await expect(transfer).toContainText('Please enter a valid email address');
  await expect(go).toBeDisabled();
  await email.fill(reader.email);
  await expect(go).toBeEnabled();
  await go.click();
  await expectToast(
    page,
    'Ownership Transferred',
    `Ownership of the study was transferred to ${reader.email}.`,
  );
  await expect(studyRow(page, description)).toHaveCount(0);
  await rp.goto('/studies');
  await expect(studyRow(rp, description)).toBeVisible();

  await Promise.all([admin.close(), owner.context.close(), reader.context.close()]);
});

test('an unregistered recipient signs up from the emailed link, asks for ownership and the owner approves from the link', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const admin = await adminContext(browser);
  const owner = await newUser(browser, 'invite-owner', 'Oscar', 'Owner');
  const page = owner.page;
  await allowSharing(page);
  const description = 'Invited phantom';
  await uploadStudy(page, 'invite', 'Invite^Phantom', description);

  const inviteeEmail = uniqueEmail('invitee');
  await studyRow(page, description).getByRole('button', { name: 'Share study' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share Study' });
  await dialog.getByRole('combobox', { name: 'Email' }).fill(inviteeEmail);
  // A valid typed address is shared without pressing Enter first.
  await dialog.getByRole('button', { name: 'Share Study' }).click();
  await expectToast(page, 'Study Shared', `You invited ${inviteeEmail} to view your study`);

  // The emailed link: sign up from it, and the study is there.
  const invitation = await mailTo(admin, inviteeEmail, /shareId=/);
  const link = linkIn(invitation, /\/\?mode=shared_studies/);
  const invitee = await browser.newContext({ baseURL: appBase() });
  const ip = await invitee.newPage();
  await ip.goto(link);
  // The sign-in page says why they are there, with the address the share was sent to filled in.
  await expect(ip.getByText('A study has been shared with you')).toContainText(inviteeEmail);
  await expect(ip.getByLabel('Email')).toHaveValue(inviteeEmail);
  await ip.getByRole('link', { name: 'Register as a patient' }).click();
  await expect(ip).toHaveURL(/shareId=/);
  await expect(ip).not.toHaveURL(/email=/);
  await ip.getByLabel('First Name').fill('Ivy');
  await ip.getByLabel('Last Name').fill('Invitee');
  await expect(ip.getByLabel('Email')).toHaveValue(inviteeEmail);
  await ip.getByLabel('Mobile Phone').fill('+15550100');
  await ip.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await ip.getByLabel('Confirm Password').fill(PASSWORD);
  await ip.getByLabel('I accept the terms and conditions').check();
  await ip.getByRole('button', { name: 'Register' }).click();
  await expect(ip).toHaveURL(/\/studies\?tab=shared_studies$/);
  const welcome = ip.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  if (
    await welcome
      .waitFor({ timeout: 5_000 })
      .then(() => true)
      .catch(() => false)
  )
    await welcome.getByRole('button', { name: 'Skip' }).click();
  await expect(studyRow(ip, description)).toBeVisible();
  await expect(studyRow(ip, description)).toContainText('Oscar Owner');

  // On a phone the list and the owner's dialog still fit.
  await ip.setViewportSize({ width: 390, height: 844 });
  await ip.screenshot({ path: test.info().outputPath('shared-studies-phone.png') });

  await openRowMenu(ip, description, 'Request Ownership');
  await expectToast(ip, 'Ownership Request Submitted', 'Your ownership request was sent to the owner.');

  // The owner follows the approve link: the study moves and leaves the owner's list.
  const request = await mailTo(admin, owner.email, /requesterId=/);
  await page.goto(linkIn(request, /\/studies\?studyId=/));
  await expectToast(page, 'Ownership Transferred', `transferred to ${inviteeEmail}`);
  await expect(page).toHaveURL(/\/studies$/);
  await expect(page.getByText('No studies found')).toBeVisible();

  // The new owner's notification link says so, then shows a clean My Studies with the study.
  const received = await mailTo(admin, inviteeEmail, /newOwnerId=/);
  await ip.goto(linkIn(received, /\/studies\?newOwnerId=/));
  await expectToast(ip, 'Ownership Received', 'You are the owner of study');
  await expect(ip).toHaveURL(/\/studies$/);
  await expect(studyRow(ip, description)).toBeVisible();
  await ip.getByRole('tab', { name: 'Shared Studies' }).click();
  await expect(ip).toHaveURL(/tab=shared_studies/);
  await expect(ip.getByText('No shared studies found')).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/studies');
  await page.screenshot({ path: test.info().outputPath('my-studies-phone.png') });

  await Promise.all([admin.close(), owner.context.close(), invitee.close()]);
});
