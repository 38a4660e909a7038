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
  // The sign-in waits for the proof-of-work captcha, seconds on a busy machine.
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible({ timeout: 45_000 });
  return admin;
}

/**
 * A professional applies, the admin approves them and they confirm their email. With `providerId`,
 * the admin links them to that organisation: the orders sent to it are theirs. Signed in, in a
 * context of their own, past the onboarding dialog.
 */
export async function linkedProfessional(
  browser: Browser,
  baseURL: string,
  admin: BrowserContext,
  providerId: string | null,
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

  if (providerId) {
    const linked = await admin.request.put(`/api/admin/providers/${providerId}/link`, { data: { email } });
    expect(linked.ok(), await linked.text()).toBe(true);
  }

  await signIn(page, email);
  const welcome = page.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  // A first sign-in is greeted by the onboarding dialog; skipped here.
  await welcome.waitFor({ timeout: 45_000 });
  await welcome.getByRole('button', { name: 'Skip' }).click();
  await expect(welcome).toHaveCount(0);
  return { context, page, email };
}

/**
 * A verified professional who completed and published their directory profile and offers the
 * named services at their list price (through the API of their own signed-in browser context):
 * the directory lists them and their orders are theirs to accept and deliver. Returns their
 * provider id with the signed-in context.
 */
export async function offeringProfessional(
  browser: Browser,
  baseURL: string,
  admin: BrowserContext,
  name: { first: string; last: string },
  services: string[] = ['Expert Review', 'Complete Analysis Package'],
) {
  const pro = await linkedProfessional(browser, baseURL, admin, null, name);
  const api = pro.context.request;
  const saved = await api.put('/api/professional/profile', {
    data: {
      description: 'Reads CT, MRI and X-ray.',
      yearsOfExperience: '11',
      credentials: ['MD'],
      workingHours: { weekdays: '08:00-18:00', weekends: 'Closed' },
      location: { street: '', city: 'Seattle', state: 'WA', zipCode: '', country: 'United States' },
      contact: { email: '', mobile: '', website: '' },
    },
  });
  expect(saved.ok(), await saved.text()).toBe(true);
  const published = await api.post('/api/professional/profile/publish', { data: { published: true } });
  expect(published.ok(), await published.text()).toBe(true);
  const offers = (await (await api.get('/api/professional/offers')).json()) as Array<{
    serviceId: string;
    serviceName: string;
    defaultPrice: number;
    typicalTime: string;
    supportedModalities: string[];
  }>;
  for (const service of services) {
    const offer = offers.find((o) => o.serviceName === service)!;
    const res = await api.put(`/api/professional/offers/${offer.serviceId}`, {
      data: {
        price: offer.defaultPrice,
        turnaround: offer.typicalTime,
        modalities: offer.supportedModalities,
      },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }
  return {
    ...pro,
    providerId: (await published.json()).providerId as string,
    name: `${name.first} ${name.last}`,
  };
}

/** What a professional completes of their directory profile (PUT /api/professional/profile). */
export interface ProfileFields {
  description: string;
  yearsOfExperience: string;
  credentials: string[];
  workingHours: { weekdays: string; weekends: string };
  location: { street: string; city: string; state: string; zipCode: string; country: string };
  contact: { email: string; mobile: string; website: string };
}

/**
 * The professional saves these profile fields (through the API of their own signed-in context), as
 * they would on their Directory Profile page; a published profile stays published. Answers the
 * profile as the server keeps it.
 */
export async function saveProfile(pro: { context: BrowserContext }, fields: ProfileFields) {
  const saved = await pro.context.request.put('/api/professional/profile', { data: fields });
  expect(saved.ok(), await saved.text()).toBe(true);
  return (await saved.json()) as ProfileFields & { publishedAt: string | null; licenseState: string };
}
