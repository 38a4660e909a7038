import path from 'node:path';
import { expect, expectAccessible, test } from './a11y';
import type { Locator, Page } from '@playwright/test';
import { signIn } from './professionals';
import { fixtures, PASSWORD, pickFromTile, uniqueEmail, uploadAndReturnToStudies } from './study-files';

/**
 * Every page, dialog, menu and admin tab at a desktop and a phone width, with axe-core: no serious
 * or critical WCAG 2.1 A/AA finding (a11y.ts). The other specs check the pages they visit on the
 * way; this one opens what they do not and does it at both widths.
 */

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Opens something with `open`, checks the page with it open, closes it with Escape. */
async function checkOpen(page: Page, where: string, open: () => Promise<unknown>, shown: Locator) {
  await open();
  await expect(shown).toBeVisible();
  await expectAccessible(page, where);
  await page.keyboard.press('Escape');
  await expect(shown).toBeHidden();
}

/** Opens the user menu (and the mobile navigation on a phone) and checks both. */
async function checkShellMenus(page: Page, phone: boolean, where: string) {
  await checkOpen(
    page,
    `${where}: user menu`,
    () => page.getByRole('button', { name: /user menu/i }).click(),
    page.getByRole('menu'),
  );
  if (phone) {
    await checkOpen(
      page,
      `${where}: navigation`,
      () => page.getByRole('button', { name: 'Open navigation menu' }).click(),
      page.getByRole('dialog'),
    );
  }
}

for (const size of WIDTHS) {
  test.describe(`at ${size.width} px`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });
    const phone = size.width < 768;

    test('signed-out pages', async ({ page }) => {
      for (const url of [
        '/login',
        '/register/patient',
        '/register/medical',
        '/forgot-password',
        '/reset-password?token=not-a-token',
        '/registration-pending',
        '/verify-email?token=not-a-token',
      ]) {
        await page.goto(url);
        await expect(page.getByRole('heading').first()).toBeVisible();
        await expectAccessible(page, url);
      }
      // The form's errors.
      await page.goto('/register/patient');
      await page.getByRole('button', { name: 'Register' }).click();
      await expect(page.getByText('First name is required')).toBeVisible();
      await expectAccessible(page, 'registration errors');
    });

    test("a patient's pages, dialogs and menus", async ({ page }) => {
      test.setTimeout(300_000);
      await page.goto('/register/patient');
      await page.getByLabel('First Name').fill('Ada');
      await page.getByLabel('Last Name').fill('Lovelace');
      await page.getByLabel('Email').fill(uniqueEmail('a11y'));
      await page.getByLabel('Mobile Phone').fill('+15550100');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Confirm Password').fill(PASSWORD);
      await page.getByLabel('I accept the terms and conditions').check();
      await page.getByRole('button', { name: 'Register' }).click();
      const welcome = page.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
      await expect(welcome).toBeVisible({ timeout: 45_000 });
      await expectAccessible(page, 'welcome dialog');
      await welcome.getByRole('button', { name: 'Skip' }).click();
      await expect(welcome).toHaveCount(0);
      await expectAccessible(page, 'dashboard, empty');

      // A study to list.
      await page.goto('/upload');
      await expectAccessible(page, 'upload');
      await pickFromTile(page, 'Select Files', path.join(fixtures, 'CT_small.dcm'));
      await expect(page.getByText('You selected 1 file(s)')).toBeVisible();
      await expectAccessible(page, 'upload, file chosen');
      await uploadAndReturnToStudies(page);
      const actions = page.getByRole('button', { name: 'More actions' }).first();
      await expect(actions).toBeVisible({ timeout: 90_000 });
      await expectAccessible(page, 'my studies');
      await checkShellMenus(page, phone, 'my studies');

      await checkOpen(page, 'more actions', () => actions.click(), page.getByRole('menu'));
      await checkOpen(
        page,
        'modality select',
        () => page.getByRole('combobox', { name: 'Modality' }).click(),
        page.getByRole('listbox'),
      );
      await checkOpen(
        page,
        'study date filter',
        () => page.getByRole('button', { name: 'Study date range' }).click(),
        page.getByRole('dialog').getByRole('grid').first(),
      );
      for (const [button, heading] of [
        ['Study information', 'Study Information'],
        ['Share study', 'Share Study'],
        ['Delete study', 'Delete Study'],
      ] as const) {
        await checkOpen(
          page,
          `${button} dialog`,
          () => page.getByRole('button', { name: button }).first().click(),
          page.getByRole('heading', { name: heading }),
        );
      }
      for (const [item, heading] of [
        ['Transfer Ownership', 'Transfer Ownership'],
        ['Access & activity', /Access/],
      ] as const) {
        await checkOpen(
          page,
          `${item} dialog`,
          async () => {
            await actions.click();
            await page.getByRole('menuitem', { name: item }).click();
          },
          page.getByRole('dialog').getByRole('heading', { name: heading }).first(),
        );
      }
      await page.getByRole('tab', { name: 'Shared Studies' }).click();
      await expect(page.getByText('No shared studies found')).toBeVisible();
      await expectAccessible(page, 'shared studies');

      await page.goto('/');
      await expect(page.getByRole('list', { name: 'Studies' })).toBeVisible();
      await expectAccessible(page, 'dashboard');

      await page.goto('/services/available');
      await expect(page.getByRole('heading', { name: 'Available Services' })).toBeVisible();
      await expectAccessible(page, 'available services');
      const details = page
        .getByRole('button', { name: /^(Show|Details and providers of) AI Quick Analysis$/ })
        .filter({ visible: true })
        .first();
      await details.click();
      await page.getByRole('button', { name: 'Purchase' }).filter({ visible: true }).first().click();
      const purchase = page.getByRole('dialog');
      await expect(purchase.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
      // The study is named with its patient as every list names it ('LAST, FIRST', not DICOM's 'LAST^FIRST').
      await expect(purchase.getByLabel('Select study:')).toContainText(/CompressedSamples, CT1/);
      await expect(purchase.getByLabel('Select study:')).not.toContainText('^');
      await expectAccessible(page, 'purchase dialog');
      await page.keyboard.press('Escape');
      await expect(purchase).toHaveCount(0);

      for (const [url, heading] of [
        ['/services/purchased', 'Purchased Services'],
        ['/providers', 'Healthcare Providers'],
        ['/billing', 'Transaction History'],
        ['/notifications', 'Notifications'],
        ['/share', /Share/],
        ['/help', /Help/],
        ['/no-such-page', /not found/i],
      ] as const) {
        await page.goto(url);
        await expect(page.getByRole('heading', { name: heading }).first()).toBeVisible();
        await expectAccessible(page, url);
      }
      await page.goto('/help');
      // The Help header keeps the app's name whole beside 'Return to Home', on a phone too.
      const brand = page.getByRole('banner').getByRole('link', { name: 'Medical Imaging v3.0' });
      await expect(brand).toBeVisible();
      expect(await brand.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      await expect(page.getByRole('link', { name: 'Return to Home' })).toBeInViewport({ ratio: 1 });
      const article = page.getByRole('main').getByRole('link').first();
      if (await article.isVisible()) {
        await article.click();
        await expect(page).toHaveURL(/\/help\/.+/);
        await expectAccessible(page, 'help article');
      }

      await page.goto('/settings');
      for (const tab of ['Personal Info', 'Privacy & Sharing', 'Consent Management', 'Notifications']) {
        await page.getByRole('tab', { name: tab }).click();
        await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
        await expectAccessible(page, `settings: ${tab}`);
      }

      await page.getByRole('button', { name: /user menu/i }).click();
      await page.getByRole('menuitem', { name: 'Invite User' }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await expectAccessible(page, 'invite user dialog');
      await page.keyboard.press('Escape');
    });

    test("the admin's tabs", async ({ page }) => {
      test.setTimeout(180_000);
      await signIn(page, process.env.E2E_ADMIN_EMAIL!, process.env.E2E_ADMIN_PASSWORD!);
      await expect(page.getByText('Medical Imaging v3.0')).toBeVisible({ timeout: 45_000 });
      const welcome = page.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
      if (await welcome.isVisible()) await welcome.getByRole('button', { name: 'Skip' }).click();
      // An organisation nobody reads for yet: the Providers tab offers 'Link account' for it.
      const organisation = `Accessible Imaging ${size.width} ${Date.now()}`;
      const created = await page.request.post('/api/admin/providers', {
        data: {
          name: organisation,
          specialty: 'Radiology',
          description: 'A reading group.',
          yearsOfExperience: '5',
          credentials: [],
          location: { street: '', city: 'Denver', state: 'CO', zipCode: '', country: 'United States' },
          academicProfile: { rank: '', numberOfPublications: 0 },
          contactInformation: { email: uniqueEmail('a11y-org'), mobile: '', website: '' },
          workingHours: { weekdays: '', weekends: '' },
        },
      });
      expect(created.status(), await created.text()).toBe(201);
      await page.goto('/admin');
      for (const tab of [
        'Users',
        'Audit log',
        'Health',
        'Professionals',
        'Providers',
        'Services',
        'Ratings',
        'Outbox',
        'Failed jobs',
        'Help articles',
      ]) {
        await page.getByRole('tab', { name: tab }).click();
        await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
        await expect(page.getByRole('tabpanel').getByRole('status', { name: /Loading/ })).toHaveCount(0);
        await expectAccessible(page, `admin: ${tab}`);
        if (tab === 'Providers') {
          const link = page.getByRole('button', { name: `Link account to ${organisation}` });
          await expect(link).toBeVisible();
          await checkOpen(page, 'link account dialog', () => link.click(), page.getByRole('dialog'));
        }
      }
      await checkShellMenus(page, phone, 'admin');
    });
  });
}
