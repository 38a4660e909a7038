import { expect, type Locator, type Page } from '@playwright/test';

/** Stripe's test card that always succeeds, which the sandbox processor follows too. */
export const GOOD_CARD = '4242 4242 4242 4242';

/**
 * In the Confirm Purchase dialog, picks the study whose option ('patient name - study description')
 * names `description`, whatever is preselected; answers its value, the study id.
 */
export async function chooseStudy(dialog: Locator, description: string): Promise<string> {
  const option = await dialog
    .locator('option')
    .filter({ hasText: description })
    .first()
    .getAttribute('value');
  await dialog.getByLabel('Select study:').selectOption(option!);
  return option!;
}

/** Fills the card form of the checkout dialog (features/payments/components/checkout-dialog.tsx). */
export async function fillCard(dialog: Locator, cardNumber = GOOD_CARD): Promise<void> {
  await dialog.getByLabel('Card number').fill(cardNumber);
  await dialog.getByLabel('Expiry').fill('1234');
  await dialog.getByLabel('CVC').fill('123');
  await dialog.getByLabel('Postal code').fill('12345');
}

/** A name as a regular expression matching it literally ('Dr. (Demo)' matches only itself). */
export const literally = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/**
 * On Available Services (wide layout), the row of `provider` (a name, or a pattern such as
 * /Automated/) in the opened service's 'Providers of …' table; opens the service first when its
 * providers are not shown yet. Several providers sell the same service on the shared test server,
 * so a test always picks its own by name, never 'the first'.
 */
export async function providerRow(page: Page, service: string, provider: string | RegExp): Promise<Locator> {
  const providers = page.getByRole('table', { name: `Providers of ${service}` });
  const show = page.getByRole('button', { name: `Show ${service}`, exact: true });
  await expect(show.or(page.getByRole('button', { name: `Hide ${service}`, exact: true }))).toBeVisible();
  if (await show.isVisible()) await show.click();
  const row = providers.getByRole('row', {
    name: typeof provider === 'string' ? literally(provider) : provider,
  });
  await expect(row).toHaveCount(1);
  return row;
}

/**
 * Buys `service` from the provider named `provider` for the study described so, with the 4242
 * card, on Available Services; ends on Purchased Services.
 */
export async function buy(
  page: Page,
  service: string,
  provider: string,
  studyDescription: string,
  /** What the dialog must say of the chosen study before payment (a study the service cannot read). */
  warning?: RegExp,
) {
  await page.goto('/services/available');
  await (await providerRow(page, service, provider)).getByRole('button', { name: 'Purchase' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
  await chooseStudy(dialog, studyDescription);
  if (warning) await expect(dialog.getByRole('alert').filter({ hasText: warning })).toBeVisible();
  await fillCard(dialog);
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment Completed' })).toBeVisible({ timeout: 20_000 });
  await dialog.getByRole('link', { name: 'Go to Purchased Services' }).click();
  await expect(page).toHaveURL(/\/services\/purchased$/);
}
