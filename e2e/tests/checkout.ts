import type { Locator } from '@playwright/test';

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
