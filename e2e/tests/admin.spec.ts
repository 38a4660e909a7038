import path from 'node:path';
import { type Browser, type Page } from '@playwright/test';
import { expect, test } from './a11y';
import {
  PASSWORD,
  fixtures,
  pickFromTile,
  registerPatient,
  uniqueEmail,
  uploadAndReturnToStudies,
} from './study-files';

async function signIn(page: Page, email: string, pass = PASSWORD) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(pass);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

/** An admin signed in in its own browser context; its `request` shares the session cookies. */
async function adminContext(browser: Browser, baseURL: string) {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signIn(page, process.env.E2E_ADMIN_EMAIL!, process.env.E2E_ADMIN_PASSWORD!);
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();
  return { context, page };
}

interface OutboxMessage {
  to: string;
  subject: string;
  text: string;
}
async function outbox(admin: { context: { request: Page['request'] } }): Promise<OutboxMessage[]> {
  const res = await admin.context.request.get('/api/admin/outbox');
  expect(res.ok()).toBe(true);
  return (await res.json()).data as OutboxMessage[];
}

test('an admin finds a user and disables the account: their session ends and they cannot sign in', async ({
  page,
  browser,
  baseURL,
}) => {
  const email = uniqueEmail('disabled');
  await registerPatient(page, email);
  const admin = await adminContext(browser, baseURL!);
  try {
    await admin.page.goto('/admin');
    // The open tab is in the address: a reload comes back to it.
    await admin.page.getByRole('tab', { name: 'Audit log' }).click();
    await expect(admin.page).toHaveURL(/\/admin\?tab=audit$/);
    await admin.page.reload();
    await expect(admin.page.getByRole('tab', { name: 'Audit log' })).toHaveAttribute('aria-selected', 'true');
    await admin.page.getByRole('tab', { name: 'Users' }).click();
    await expect(admin.page).toHaveURL(/\/admin\?tab=users$/);
    await admin.page.getByLabel('Search users by name or email').fill(email);
    await admin.page.getByRole('button', { name: 'Search' }).click();
    await admin.page.getByRole('button', { name: `Manage ${email}` }).click();
    const dialog = admin.page.getByRole('dialog');
    await expect(dialog).toContainText('Patient'.toLowerCase());
    await expect(dialog).toContainText('Second factor');
    await dialog.getByRole('button', { name: 'Disable account' }).click();
    await dialog.getByRole('button', { name: 'Confirm disable' }).click();
    await expect(admin.page.getByText('Account disabled', { exact: true })).toBeVisible();
    await expect(dialog.getByText('Disabled', { exact: true })).toBeVisible();

    // The user's open session is gone…
    await page.reload();
    await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();
    // …and signing in is refused with a clear message.
    await signIn(page, email);
    await expect(
      page.getByText('This account has been disabled. Please contact support.').first(),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/login/);

    // Enabling lets them back in.
    await dialog.getByRole('button', { name: 'Enable account' }).click();
    await expect(admin.page.getByText('Account enabled', { exact: true })).toBeVisible();
    await signIn(page, email);
    await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();

    // The change is in the audit log.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toHaveCount(0);
    await admin.page.getByRole('tab', { name: 'Audit log' }).click();
    await admin.page.getByLabel('Action').fill('user.disable');
    await admin.page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(
      admin.page.getByRole('list', { name: 'Audit events' }).getByText('user.disable').first(),
    ).toBeVisible();
    await admin.page.getByRole('tab', { name: 'Health' }).click();
    await expect(admin.page.getByRole('list', { name: 'Health' })).toContainText('Database');
    await expect(admin.page.getByRole('list', { name: 'Health' })).toContainText('waiting or running');
  } finally {
    await admin.context.close();
  }
});

test('a finished upload is emailed only to a user who allows email', async ({ page, browser, baseURL }) => {
  test.setTimeout(180_000);
  const ct = path.join(fixtures, 'CT_small.dcm');
  const admin = await adminContext(browser, baseURL!);
  try {
    // Email allowed (the default).
    const allowing = uniqueEmail('mail-on');
    await registerPatient(page, allowing);
    await page.goto('/upload?backUrl=/studies');
    await pickFromTile(page, 'Select Files', [ct]);
    await uploadAndReturnToStudies(page);
    await expect
      .poll(
        async () =>
          (await outbox(admin)).some(
            (m) => m.to === allowing && m.subject === 'Your upload has been processed',
          ),
        { timeout: 60_000 },
      )
      .toBe(true);
    const sent = (await outbox(admin)).find((m) => m.to === allowing && m.subject.includes('processed'))!;
    expect(sent.text).not.toMatch(/CompressedSamples|CT1|JFK/);

    // Email turned off in Settings.
    const other = await browser.newContext({ baseURL });
    try {
      const quiet = await other.newPage();
      const declining = uniqueEmail('mail-off');
      await registerPatient(quiet, declining);
      await quiet.goto('/settings');
      await quiet.getByRole('tab', { name: 'Notifications' }).click();
      const toggle = quiet.getByRole('switch', { name: 'Email Notifications' });
      await expect(toggle).toBeChecked();
      await toggle.click();
      await expect(toggle).not.toBeChecked();
      await quiet.goto('/upload?backUrl=/studies');
      await pickFromTile(quiet, 'Select Files', [ct]);
      await uploadAndReturnToStudies(quiet);
      // The in-app notification arrives…
      await quiet.goto('/notifications');
      await expect(quiet.getByRole('list', { name: 'All notifications' })).toContainText('Study processed', {
        timeout: 60_000,
      });
      // …but no email (give the mail job time to have run).
      await quiet.waitForTimeout(3000);
      expect((await outbox(admin)).filter((m) => m.to === declining && m.subject.includes('upload'))).toEqual(
        [],
      );
    } finally {
      await other.close();
    }
  } finally {
    await admin.context.close();
  }
});

test('the notifications page lists read and unread notifications and marks all read', async ({ page }) => {
  test.setTimeout(120_000);
  await registerPatient(page, uniqueEmail('notes'));
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', [path.join(fixtures, 'CT_small.dcm')]);
  await uploadAndReturnToStudies(page);
  await page.goto('/');
  const recent = page.getByRole('list', { name: 'Notifications' });
  await expect(recent).toContainText('Study processed', { timeout: 60_000 });
  await page.getByRole('link', { name: 'See all notifications' }).click();
  await expect(page).toHaveURL(/\/notifications$/);
  await expect(page.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
  const all = page.getByRole('list', { name: 'All notifications' });
  await expect(all).toContainText('Study processed');
  await expect(page.getByText(/^1 unread of \d+$/)).toBeVisible();
  await page.getByRole('button', { name: 'Mark all as read' }).click();
  await expect(page.getByText('All notifications marked as read', { exact: true })).toBeVisible();
  await expect(page.getByText(/^0 unread of \d+$/)).toBeVisible();
  // Still listed, now read.
  await expect(all).toContainText('Study processed');
  await page.goto('/');
  await expect(page.getByText('No unread notifications')).toBeVisible();
});

test('logging out from the user menu says so', async ({ page }) => {
  await registerPatient(page, uniqueEmail('logout'));
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page.getByText('Logged Out', { exact: true })).toBeVisible();
  await expect(page.getByText('You have been logged out successfully.', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();
});

test('the welcome dialog walks through its six steps with Next and closes for good with Done', async ({
  page,
}) => {
  const email = uniqueEmail('welcome');
  await page.goto('/register/patient');
  await page.getByLabel('First Name').fill('Wendy');
  await page.getByLabel('Last Name').fill('Welcome');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mobile Phone').fill('+15550100');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByLabel('I accept the terms and conditions').check();
  await page.getByRole('button', { name: 'Register' }).click();
  const welcome = page.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  await expect(welcome).toBeVisible();
  const titles = [
    'Click Upload New Study',
    'Choose media type and files',
    'Click Upload',
    'Wait for processing',
    'Return to the study list',
    'Get notified or request analysis',
  ];
  for (const [i, title] of titles.entries()) {
    await expect(welcome.getByText(`Step ${i + 1} of 6`)).toBeVisible();
    await expect(welcome.getByRole('heading', { name: title })).toBeVisible();
    if (i < titles.length - 1) {
      await expect(welcome.getByRole('button', { name: 'Done' })).toHaveCount(0);
      await welcome.getByRole('button', { name: 'Next' }).click();
    }
  }
  await expect(welcome.getByRole('button', { name: 'Next' })).toHaveCount(0);
  await welcome.getByRole('button', { name: 'Done' }).click();
  await expect(welcome).toHaveCount(0);
  // Done is remembered: the dialog does not come back, not even after signing in again.
  await page.reload();
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();
  await expect(welcome).toHaveCount(0);
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await signIn(page, email);
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();
  await page.waitForTimeout(500);
  await expect(welcome).toHaveCount(0);
});
