import { expect, type Page } from '@playwright/test';

export const FIRST_ADMIN_EMAIL = 'admin@localhost.localdomain';
/** What the browser tests choose for the first admin in place of the printed one-time password. */
export const CHOSEN_ADMIN_PASSWORD = 'Ch0sen!AdminPassw0rd';

/**
 * The first sign-in of an app's first admin, with the one-time password it printed: the app asks
 * for a new password before anything else, and `chosen` is set on that screen.
 */
export async function chooseFirstAdminPassword(page: Page, oneTime: string, chosen: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(FIRST_ADMIN_EMAIL);
  await page.getByLabel('Password', { exact: true }).fill(oneTime);
  await page.getByRole('button', { name: 'Sign In' }).click();
  // The sign-in waits for the proof-of-work captcha, seconds on a busy machine.
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible({ timeout: 45_000 });
  await page.getByLabel('One-time password').fill(oneTime);
  await page.getByLabel('New password', { exact: true }).fill(chosen);
  await page.getByLabel('Confirm new password').fill(chosen);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible({ timeout: 20_000 });
}
