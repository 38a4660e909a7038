import { type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { linkedProfessional } from './professionals';

async function signInAsAdmin(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(process.env.E2E_ADMIN_EMAIL!);
  await page.getByLabel('Password', { exact: true }).fill(process.env.E2E_ADMIN_PASSWORD!);
  await page.getByRole('button', { name: 'Sign In' }).click();
  // The sign-in waits for the captcha's proof of work, which takes a while on a busy machine.
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible({ timeout: 60_000 });
}

interface ServiceDto {
  name: string;
  providers: Array<{ name: string; price: number }>;
}

test('an admin creates a service, offers it through an organisation with a reader, re-prices the offer and retires the service', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const name = `Spine MRI Review ${Date.now()}`;
  await signInAsAdmin(page);
  // An organisation the admin added to the directory; nobody reads for it yet.
  const organisation = `Spinal Imaging Partners ${Date.now()}`;
  const created = await page.request.post('/api/admin/providers', {
    data: {
      name: organisation,
      specialty: 'Radiology',
      description: 'A teleradiology group reading spine imaging.',
      yearsOfExperience: '9',
      credentials: [],
      location: { street: '', city: 'Denver', state: 'CO', zipCode: '', country: 'United States' },
      academicProfile: { rank: '', numberOfPublications: 0 },
      contactInformation: { email: `spine-${Date.now()}@partners.example.com`, mobile: '', website: '' },
      workingHours: { weekdays: '', weekends: '' },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const organisationId = ((await created.json()) as { data: { id: string } }).data.id;
  await page.goto('/admin');
  await page.getByRole('tab', { name: 'Services' }).click();
  const table = page.getByRole('table', { name: 'Analysis services' });
  await expect(table).toContainText('AI Quick Analysis');

  // Create: the form checks the fields with the server's rules first.
  await page.getByRole('button', { name: 'New Service' }).click();
  const form = page.getByRole('dialog');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Scope (e.g. expert_review)').fill('Spine Imaging');
  await form.getByLabel('Typical time (e.g. 24-48 hours)').fill('2-3 days');
  await form.getByLabel('Description').fill('A spine specialist reads a spine MRI.');
  await form.getByLabel('Required data (one item a line)').fill('Spine MRI series\nPrevious report, if any');
  await form.getByLabel(/Supported modalities/).fill('MRI');
  await form.getByRole('button', { name: 'Create Service' }).click();
  await expect(
    form.getByText('Use lowercase letters, digits and underscores (e.g. ai_analysis)'),
  ).toBeVisible();
  await form.getByLabel('Scope (e.g. expert_review)').fill('spine_imaging');
  await form.getByRole('button', { name: 'Create Service' }).click();
  await expect(page.getByText('Service created', { exact: true })).toBeVisible();
  await expect(form).toHaveCount(0);
  const row = table.getByRole('row').filter({ hasText: name });
  await expect(row).toContainText('No live offers');

  // Offer it through the organisation: refused while nobody can read for it.
  await row.getByRole('button', { name: `Offers of ${name}` }).click();
  const offers = page.getByRole('dialog');
  await expect(offers).toContainText('No provider offers this service yet.');
  const add = offers.getByRole('form', { name: 'Add an offer' });
  await add.getByLabel('Provider').selectOption({ label: `${organisation} (Radiology)` });
  const providerName = organisation;
  await add.getByLabel('Price (dollars)').fill('0');
  await add.getByRole('button', { name: 'Add Offer' }).click();
  await expect(add.getByText('The price must be more than $0.00')).toBeVisible();
  await add.getByLabel('Price (dollars)').fill('149.50');
  await add.getByRole('button', { name: 'Add Offer' }).click();
  await expect(
    page.getByText(`${organisation} has no one to read this service`, { exact: false }).first(),
  ).toBeVisible();
  await expect(offers).toContainText('No provider offers this service yet.');
  await offers.getByRole('button', { name: 'Close' }).first().click();
  await expect(offers).toHaveCount(0);

  // The admin approves a professional and links them to the organisation (in this page, the
  // admin's): now it can sell the service.
  const reader = await linkedProfessional(browser, baseURL!, page.context(), organisationId, {
    first: 'Sanjay',
    last: 'Spinewright',
  });
  await reader.context.close();
  await page.goto('/admin');
  await page.getByRole('tab', { name: 'Services' }).click();
  await row.getByRole('button', { name: `Offers of ${name}` }).click();
  await add.getByLabel('Provider').selectOption({ label: `${organisation} (Radiology)` });
  await add.getByLabel('Price (dollars)').fill('149.50');
  await add.getByRole('button', { name: 'Add Offer' }).click();
  const offer = offers.getByRole('listitem', { name: providerName });
  await expect(offer).toContainText('$149.50');
  await expect(offer).toContainText('On sale');

  let catalogue = (await (await page.request.get('/api/services')).json()) as ServiceDto[];
  expect(catalogue.find((s) => s.name === name)?.providers).toMatchObject([
    { name: providerName, price: 149.5 },
  ]);

  // Re-price.
  await offer.getByLabel(`New price of ${providerName} (dollars)`).fill('129.99');
  await offer.getByRole('button', { name: 'Re-price' }).click();
  await expect(offers.getByRole('listitem', { name: providerName })).toContainText('$129.99');
  await offers.getByRole('button', { name: 'Close' }).first().click();
  await expect(row).toContainText('$129.99');

  // Retire: gone from the catalogue users see.
  await row.getByRole('button', { name: `Retire ${name}` }).click();
  await expect(page.getByText('Service retired', { exact: true })).toBeVisible();
  await expect(row).toContainText('Retired');
  catalogue = (await (await page.request.get('/api/services')).json()) as ServiceDto[];
  expect(catalogue.some((s) => s.name === name)).toBe(false);
});
