import { expect, test, type Page } from '@playwright/test';

async function signInAsAdmin(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(process.env.E2E_ADMIN_EMAIL!);
  await page.getByLabel('Password', { exact: true }).fill(process.env.E2E_ADMIN_PASSWORD!);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();
}

interface ServiceDto {
  name: string;
  providers: Array<{ name: string; price: number }>;
}

test('an admin creates a service, offers it, re-prices the offer and retires the service', async ({
  page,
}) => {
  const name = `Spine MRI Review ${Date.now()}`;
  await signInAsAdmin(page);
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

  // Offer it through a directory provider.
  await row.getByRole('button', { name: `Offers of ${name}` }).click();
  const offers = page.getByRole('dialog');
  await expect(offers).toContainText('No provider offers this service yet.');
  const add = offers.getByRole('form', { name: 'Add an offer' });
  await add.getByLabel('Provider').selectOption({ index: 1 });
  const providerName = (await add.getByLabel('Provider').locator('option:checked').textContent())!
    .replace(/\s*\(.*\)$/, '')
    .trim();
  await add.getByLabel('Price (dollars)').fill('0');
  await add.getByRole('button', { name: 'Add Offer' }).click();
  await expect(add.getByText('The price must be more than $0.00')).toBeVisible();
  await add.getByLabel('Price (dollars)').fill('149.50');
  await add.getByRole('button', { name: 'Add Offer' }).click();
  const offer = offers.getByRole('listitem', { name: providerName });
  await expect(offer).toContainText('$149.50');

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
