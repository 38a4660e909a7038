import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { PASSWORD, uniqueEmail } from './study-files';

/** Steps shared by the browser tests in which a medical professional fulfils an order. */

export async function signIn(page: Page, email: string, pass = PASSWORD) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(pass);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

/** The admin, signed in in a browser context of its own. */
export async function adminContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  const admin = await browser.newContext({ baseURL });
  const page = await admin.newPage();
  await signIn(page, process.env.E2E_ADMIN_EMAIL!, process.env.E2E_ADMIN_PASSWORD!);
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();
  return admin;
}

/**
 * A professional applies, the admin approves them, they confirm their email, and the admin links
 * them to a directory provider: the orders sent to that provider are theirs. Signed in, in a
 * context of their own, past the onboarding dialog.
 */
export async function linkedProfessional(
  browser: Browser,
  baseURL: string,
  admin: BrowserContext,
  providerId: string,
  name: { first: string; last: string } = { first: 'Meredith', last: 'Grey' },
) {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  const email = uniqueEmail('reader');
  await page.goto('/register/medical');
  await page.getByLabel('First Name').fill(name.first);
  await page.getByLabel('Last Name').fill(name.last);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Phone').fill('+15550125');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByLabel('License Number').fill('WA-445566');
  await page.getByLabel('License State').fill('WA');
  await page.getByLabel('License Expiry Date').fill('2031-12-31');
  await page.getByLabel('Specialty').selectOption('Radiology');
  await page.getByLabel('Hospital/Clinic Affiliation').fill('Grey Sloan Memorial');
  await page.getByLabel('Position').fill('Attending');
  await page.getByLabel('I accept the terms and conditions').check();
  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page).toHaveURL(/\/registration-pending$/);

  const applications = await (await admin.request.get('/api/admin/professionals')).json();
  const list = (Array.isArray(applications) ? applications : applications.data) as Array<{
    id: string;
    email: string;
  }>;
  expect(list.find((a) => a.email === email)).toBeTruthy();
  const adminPage = admin.pages()[0]!;
  await adminPage.goto('/admin');
  await adminPage.getByRole('tab', { name: 'Professionals' }).click();
  await adminPage
    .getByRole('listitem', { name: `${name.first} ${name.last}` })
    .getByRole('button', { name: 'Approve' })
    .click();
  await expect(adminPage.getByText('Application approved', { exact: true }).first()).toBeVisible();
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const messages = (await (await admin.request.get('/api/admin/outbox')).json()).data as Array<{
          to: string;
          text: string;
        }>;
        link = messages
          .filter((m) => m.to === email)
          .map((m) => /(http\S*\/verify-email\S*)/.exec(m.text)?.[1])
          .find(Boolean);
        return !!link;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  const url = new URL(link!);
  await page.goto(url.pathname + url.search);
  await expect(page.getByText('Your email address has been verified.')).toBeVisible();

  const linked = await admin.request.put(`/api/admin/providers/${providerId}/link`, { data: { email } });
  expect(linked.ok(), await linked.text()).toBe(true);

  await signIn(page, email);
  const welcome = page.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  // A first sign-in is greeted by the onboarding dialog; skipped here.
  await welcome.waitFor({ timeout: 15_000 });
  await welcome.getByRole('button', { name: 'Skip' }).click();
  await expect(welcome).toHaveCount(0);
  return { context, page, email };
}
