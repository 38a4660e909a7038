import { randomUUID } from 'node:crypto';
import { type Browser, type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { adminContext, offeringProfessional, saveProfile, type ProfileFields } from './professionals';
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
  await expect(row.getByRole('button', { name: `Added: ${name} is in your providers` })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
}

/**
 * Verified professionals who published their directory profile (and offer `services`), with these
 * profile fields; answers their directory names. Their registration (professionals.ts) gives them
 * the specialty Radiology, 'Attending' at 'Grey Sloan Memorial' and a licence in WA.
 */
async function publishedProfessionals(
  browser: Browser,
  baseURL: string,
  people: Array<{ first: string; last: string; profile: ProfileFields; services?: string[] }>,
): Promise<string[]> {
  const admin = await adminContext(browser, baseURL);
  const names: string[] = [];
  for (const person of people) {
    const pro = await offeringProfessional(
      browser,
      baseURL,
      admin,
      { first: person.first, last: person.last },
      person.services ?? [],
    );
    await saveProfile(pro, person.profile);
    await pro.context.close();
    names.push(pro.name);
  }
  await admin.close();
  return names;
}

test('a patient adds providers from the directory, filters them, reads details and removes one', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(300_000);
  const tag = Date.now();
  // Two professionals the directory lists, with every detail a patient will read.
  const [imogen, rohan] = (await publishedProfessionals(browser, baseURL!, [
    {
      first: 'Imogen',
      last: 'Thackeray',
      services: ['Expert Review'],
      profile: {
        description: 'Diagnostic radiologist: CT and MRI of the chest and abdomen, second opinions.',
        yearsOfExperience: '18',
        credentials: ['FRCR', 'MD'],
        workingHours: { weekdays: '08:00–18:00', weekends: 'On call' },
        location: {
          street: '12 Harbour Row',
          city: 'Bristol',
          state: 'England',
          zipCode: 'BS1 4QA',
          country: 'United Kingdom',
        },
        contact: {
          email: `imogen.thackeray.${tag}@example.org`,
          mobile: '+44 7700 900101',
          website: 'https://thackeray-imaging.example.org',
        },
      },
    },
    {
      first: 'Rohan',
      last: 'Deshpande',
      profile: {
        description: 'Musculoskeletal radiology.',
        yearsOfExperience: '7',
        credentials: ['MD'],
        workingHours: { weekdays: '09:00–17:00', weekends: 'Closed' },
        location: { street: '', city: 'Pune', state: '', zipCode: '', country: 'India' },
        contact: { email: `rohan.deshpande.${tag}@example.org`, mobile: '', website: '' },
      },
    },
  ])) as [string, string];

  await page.setViewportSize({ width: 1280, height: 900 });
  await registerPatient(page, uniqueEmail('providers'));
  await page.goto('/providers');
  await expect(page.getByRole('heading', { name: 'Healthcare Providers' })).toBeVisible();
  await expect(page.getByText('No providers yet')).toBeVisible();
  await expect(page.getByText(SHARE_BANNER)).toHaveCount(0);

  // The directory dialog has its own filters (other tests' providers are listed too: only these
  // two are checked).
  await page.getByRole('button', { name: 'Add Existing Provider' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add Existing Provider' });
  const entry = (name: string) => dialog.getByRole('listitem', { name, exact: true });
  await expect(entry(imogen)).toContainText('Verified · licensed in WA');
  await expect(entry(imogen)).toContainText('No ratings yet');
  await dialog.getByRole('combobox', { name: 'Specialty' }).selectOption('Radiology');
  await dialog.getByRole('combobox', { name: 'Experience' }).selectOption('15+');
  await expect(entry(imogen)).toBeVisible();
  await expect(entry(rohan)).toHaveCount(0);
  await dialog.getByRole('combobox', { name: 'Experience' }).selectOption('all');
  await dialog.getByRole('combobox', { name: 'Country' }).selectOption('India');
  await expect(entry(rohan)).toBeVisible();
  await expect(entry(imogen)).toHaveCount(0);
  await page.keyboard.press('Escape');

  await addFromDirectory(page, imogen);
  await addFromDirectory(page, rohan);

  const table = page.getByRole('table', { name: 'Your providers' });
  await expect(table.getByRole('row')).toHaveCount(3);
  // Newest first.
  await expect(table.getByRole('row').nth(1)).toContainText(rohan);

  // Search by email, then by country and experience.
  const search = page.getByRole('searchbox', { name: 'Search your providers' });
  await search.fill(`IMOGEN.THACKERAY.${tag}@`);
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).toContainText(imogen);
  await search.fill('');
  await page.getByRole('combobox', { name: 'Country' }).selectOption('India');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).toContainText(rohan);
  await page.getByRole('combobox', { name: 'Experience' }).selectOption('15+');
  await expect(page.getByText('No providers match your search')).toBeVisible();
  await page.getByRole('combobox', { name: 'Country' }).selectOption('all');
  await page.getByRole('combobox', { name: 'Experience' }).selectOption('all');
  await expect(table.getByRole('row')).toHaveCount(3);

  // Provider Details shows every field of the professional's profile and registration, the licence
  // an admin verified, and no rating until a patient gives one.
  await page.getByRole('button', { name: `Provider details: ${imogen}` }).click();
  const details = page.getByRole('dialog', { name: 'Provider Details' });
  for (const text of [
    imogen,
    'Radiology',
    'Attending · Grey Sloan Memorial',
    'Diagnostic radiologist: CT and MRI of the chest and abdomen, second opinions.',
    '18 years',
    'FRCR',
    'MD',
    '12 Harbour Row, Bristol, England BS1 4QA, United Kingdom',
    '08:00–18:00',
    'On call',
    `imogen.thackeray.${tag}@example.org`,
    '+44 7700 900101',
    'https://thackeray-imaging.example.org',
  ])
    await expect(details).toContainText(text);
  await expect(details.getByText(/^Verified · licensed in WA · since /)).toBeVisible();
  // The rating, and the ratings and comments section, both say so.
  await expect(details.getByText('No ratings yet', { exact: true })).toHaveCount(2);
  await expect(details.getByRole('link', { name: 'https://thackeray-imaging.example.org' })).toHaveAttribute(
    'href',
    'https://thackeray-imaging.example.org/',
  );
  await page.keyboard.press('Escape');

  // Nothing shared yet.
  await page.getByRole('button', { name: `View Shared Studies with ${rohan}` }).click();
  const shared = page.getByRole('dialog', { name: 'Shared Studies' });
  await expect(shared.getByText('No studies have been shared with this provider yet.')).toBeVisible();
  await page.keyboard.press('Escape');

  // Removing asks first, and says shares stay.
  await page.getByRole('button', { name: `Remove Provider ${rohan}` }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toContainText('Studies you already shared with this provider stay shared');
  await confirm.getByRole('button', { name: 'Remove Provider' }).click();
  await expect(page.getByText('Provider Removed', { exact: true })).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).not.toContainText(rohan);

  // Reloaded, the list comes from the server.
  await page.reload();
  await expect(page.getByRole('table', { name: 'Your providers' }).getByRole('row')).toHaveCount(2);

  // On a phone the providers are cards with the same actions.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('table', { name: 'Your providers' })).toBeHidden();
  const cards = page.getByRole('list', { name: 'Your providers' });
  await expect(cards.getByRole('listitem')).toHaveCount(1);
  await expect(cards.getByRole('button', { name: `Remove Provider ${imogen}` })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test('with a study id the page is the share picker', async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  const [luca] = (await publishedProfessionals(browser, baseURL!, [
    {
      first: 'Luca',
      last: 'Bianchi',
      profile: {
        description: 'Neuroradiology.',
        yearsOfExperience: '12',
        credentials: ['MD'],
        workingHours: { weekdays: '08:00–16:00', weekends: 'Closed' },
        location: { street: '', city: 'Milan', state: '', zipCode: '', country: 'Italy' },
        contact: { email: '', mobile: '', website: '' },
      },
    },
  ])) as [string];
  await registerPatient(page, uniqueEmail('providers-share'));
  await page.goto(`/providers?studyId=${randomUUID()}`);
  await expect(page.getByText(SHARE_BANNER, { exact: true })).toBeVisible();
  // A new account's sharing is off: the picker says so before a provider is chosen.
  await expect(page.getByRole('region', { name: 'Sharing is turned off' })).toContainText(
    'Your Share Medical Records setting is off, so this study cannot be shared.',
  );
  await addFromDirectory(page, luca);
  const table = page.getByRole('table', { name: 'Your providers' });
  await expect(table.getByRole('button', { name: `Share Study with ${luca}` })).toBeVisible();
  await expect(table.getByRole('button', { name: /View Shared Studies|Remove Provider/ })).toHaveCount(0);
  // Nothing can be sent until sharing is turned on, right there.
  await expect(table.getByRole('button', { name: `Share Study with ${luca}` })).toBeDisabled();
  await page
    .getByRole('region', { name: 'Sharing is turned off' })
    .getByRole('button', { name: 'Turn On Share Medical Records' })
    .click();
  await expect(page.getByRole('region', { name: 'Sharing is turned off' })).toHaveCount(0);
  // A study that is not the user's cannot be shared: the server's message is shown.
  await table.getByRole('button', { name: `Share Study with ${luca}` }).click();
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
