import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { registerPatient, uniqueEmail } from './study-files';

const SHARE_BANNER =
  'Please choose your provider to share the study. If you have no providers, click on "Add existing provider" and choose a provider. If your provider is not showing in the existing providers, you can invite the provider to use our platform.';

/** Adds a directory provider through the Add Existing Provider dialog, found by its name. */
async function addFromDirectory(page: Page, name: string) {
  await page.getByRole('button', { name: 'Add Existing Provider' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add Existing Provider' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('directory-list')).toHaveCSS('height', '500px');
  await dialog
    .getByRole('searchbox', { name: 'Search the provider directory' })
    .fill(name.split(' ').at(-1)!);
  const row = dialog.getByRole('listitem', { name });
  await row.getByRole('button', { name: `Add ${name}` }).click();
  await expect(page.getByText('Provider Added', { exact: true })).toBeVisible();
  // Already in the list: its row can no longer be added.
  await expect(row.getByRole('button', { name: `${name} is in your providers` })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
}

test('a patient adds providers from the directory, filters them, reads details and removes one', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await registerPatient(page, uniqueEmail('providers'));
  await page.goto('/providers');
  await expect(page.getByRole('heading', { name: 'Healthcare Providers' })).toBeVisible();
  await expect(page.getByText('No providers yet')).toBeVisible();
  await expect(page.getByText(SHARE_BANNER)).toHaveCount(0);

  // The directory dialog has its own filters.
  await page.getByRole('button', { name: 'Add Existing Provider' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add Existing Provider' });
  await dialog.getByRole('combobox', { name: 'Specialty' }).selectOption('Cardiology');
  await dialog.getByRole('combobox', { name: 'Experience' }).selectOption('15+');
  await expect(dialog.getByRole('listitem')).toHaveCount(1);
  await expect(dialog.getByRole('listitem', { name: 'Dr. Thomas Becker' })).toBeVisible();
  await page.keyboard.press('Escape');

  await addFromDirectory(page, 'Dr. Amelia Hartwell');
  await addFromDirectory(page, 'Dr. Priya Raman');

  const table = page.getByRole('table', { name: 'Your providers' });
  await expect(table.getByRole('row')).toHaveCount(3);
  // Newest first.
  await expect(table.getByRole('row').nth(1)).toContainText('Dr. Priya Raman');

  // Search by email, then by specialty and country.
  const search = page.getByRole('searchbox', { name: 'Search your providers' });
  await search.fill('AMELIA.HARTWELL@');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).toContainText('Dr. Amelia Hartwell');
  await search.fill('');
  await page.getByRole('combobox', { name: 'Country' }).selectOption('India');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).toContainText('Dr. Priya Raman');
  await page.getByRole('combobox', { name: 'Specialty' }).selectOption('Radiology');
  await expect(page.getByText('No providers match your search')).toBeVisible();
  await page.getByRole('combobox', { name: 'Country' }).selectOption('all');
  await page.getByRole('combobox', { name: 'Specialty' }).selectOption('all');
  await expect(table.getByRole('row')).toHaveCount(3);

  // Provider Details shows every field.
  await page.getByRole('button', { name: 'Provider details: Dr. Amelia Hartwell' }).click();
  const details = page.getByRole('dialog', { name: 'Provider Details' });
  for (const text of [
    'Diagnostic radiologist',
    '18 years',
    '4.9 / 5',
    'FRCR',
    'Associate Professor of Radiology',
    '64 publications',
    '12 Harbour Row, Bristol, England BS1 4QA, United Kingdom',
    '08:00–18:00',
    'amelia.hartwell@example.org',
    '+44 7700 900101',
    'https://hartwell-imaging.example.org',
  ])
    await expect(details).toContainText(text);
  await page.keyboard.press('Escape');

  // Nothing shared yet.
  await page.getByRole('button', { name: 'View Shared Studies with Dr. Priya Raman' }).click();
  const shared = page.getByRole('dialog', { name: 'Shared Studies' });
  await expect(shared.getByText('No studies have been shared with this provider yet.')).toBeVisible();
  await page.keyboard.press('Escape');

  // Removing asks first, and says shares stay.
  await page.getByRole('button', { name: 'Remove Provider Dr. Priya Raman' }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toContainText('Studies you already shared with this provider stay shared');
  await confirm.getByRole('button', { name: 'Remove Provider' }).click();
  await expect(page.getByText('Provider Removed', { exact: true })).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).not.toContainText('Dr. Priya Raman');

  // Reloaded, the list comes from the server.
  await page.reload();
  await expect(page.getByRole('table', { name: 'Your providers' }).getByRole('row')).toHaveCount(2);

  // On a phone the providers are cards with the same actions.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('table', { name: 'Your providers' })).toBeHidden();
  const cards = page.getByRole('list', { name: 'Your providers' });
  await expect(cards.getByRole('listitem')).toHaveCount(1);
  await expect(cards.getByRole('button', { name: 'Remove Provider Dr. Amelia Hartwell' })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test('with a study id the page is the share picker', async ({ page }) => {
  await registerPatient(page, uniqueEmail('providers-share'));
  await page.goto(`/providers?studyId=${randomUUID()}`);
  await expect(page.getByText(SHARE_BANNER, { exact: true })).toBeVisible();
  await addFromDirectory(page, 'Dr. Luca Bianchi');
  const table = page.getByRole('table', { name: 'Your providers' });
  await expect(table.getByRole('button', { name: 'Share Study with Dr. Luca Bianchi' })).toBeVisible();
  await expect(table.getByRole('button', { name: /View Shared Studies|Remove Provider/ })).toHaveCount(0);
  // A study that is not the user's cannot be shared: the server's message is shown.
  await table.getByRole('button', { name: 'Share Study with Dr. Luca Bianchi' }).click();
  await expect(page.getByText('Error', { exact: true })).toBeVisible();
  await expect(page).toHaveURL(/\/providers\?studyId=/);

  // Inviting a provider who is not listed.
  await page.getByRole('button', { name: 'Invite New Provider' }).click();
  const invite = page.getByRole('dialog', { name: 'Invite New Provider' });
  await invite.getByLabel('Email').fill('not-an-email');
  await invite.getByRole('button', { name: 'Send Invitation' }).click();
  await expect(invite.getByText('Please enter a valid email address')).toBeVisible();
  await invite.getByLabel('Email').fill(uniqueEmail('invited-provider'));
  await invite.getByRole('button', { name: 'Send Invitation' }).click();
  await expect(page.getByText('Invitation Sent', { exact: true })).toBeVisible();
  await expect(
    page.getByText('The healthcare provider has been invited to join the platform.', { exact: true }),
  ).toBeVisible();
});
