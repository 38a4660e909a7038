import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import {
  PASSWORD,
  newUid,
  pickFromTile,
  registerPatient,
  studyRow,
  tempDir,
  uniqueEmail,
  uploadAndReturnToStudies,
  writeSeries,
  zipEntries,
} from './study-files';

async function signIn(page: Page, email: string, pass = PASSWORD) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(pass);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

/** A professional applies, confirms the email, and the admin approves and links them to a provider. */
async function linkedProfessional(
  browser: Browser,
  baseURL: string,
  admin: BrowserContext,
  providerId: string,
) {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  const email = uniqueEmail('reader');
  await page.goto('/register/medical');
  await page.getByLabel('First Name').fill('Gregory');
  await page.getByLabel('Last Name').fill('House');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Phone').fill('+15550124');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByLabel('License Number').fill('NJ-112233');
  await page.getByLabel('License State').fill('NJ');
  await page.getByLabel('License Expiry Date').fill('2031-12-31');
  await page.getByLabel('Specialty').selectOption('Radiology');
  await page.getByLabel('Hospital/Clinic Affiliation').fill('Princeton-Plainsboro');
  await page.getByLabel('Position').fill('Attending');
  await page.getByLabel('I accept the terms and conditions').check();
  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page).toHaveURL(/\/registration-pending$/);

  // The admin approves the application, and the emailed confirmation link is followed.
  const applications = await (await admin.request.get('/api/admin/professionals')).json();
  const list = (Array.isArray(applications) ? applications : applications.data) as Array<{
    id: string;
    email: string;
  }>;
  const applicant = list.find((a) => a.email === email)!;
  expect(applicant).toBeTruthy();
  const adminPage = admin.pages()[0]!;
  await adminPage.goto('/admin');
  await adminPage.getByRole('tab', { name: 'Professionals' }).click();
  await adminPage
    .getByRole('listitem', { name: 'Gregory House' })
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
  return { context, page, email };
}

test('a professional linked to the provider accepts an Expert Review, writes and delivers the report; the patient gets it in the study', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(300_000);
  // The admin, in a context of its own.
  const admin = await browser.newContext({ baseURL });
  const adminPage = await admin.newPage();
  await signIn(adminPage, process.env.E2E_ADMIN_EMAIL!, process.env.E2E_ADMIN_PASSWORD!);
  await expect(adminPage.getByText('Medical Imaging v3.0')).toBeVisible();
  const services = (await (await admin.request.get('/api/services')).json()) as Array<{
    name: string;
    providers: Array<{ id: string; name: string }>;
  }>;
  const provider = services.find((s) => s.name === 'Expert Review')!.providers[0]!;
  const pro = await linkedProfessional(browser, baseURL!, admin, provider.id);

  // The patient uploads a CT study and buys Expert Review from that provider with 4242.
  await registerPatient(page, uniqueEmail('patient-fulfil'), 'Paula', 'Patient');
  const description = `Fulfil CT ${Date.now()}`;
  const dir = tempDir('fulfil');
  const files = writeSeries(dir, 'ct', 3, {
    patientName: 'Fulfil^Patient',
    studyDescription: description,
    modality: 'CT',
    studyDate: '20240301',
    studyUid: newUid(),
  });
  await page.goto('/upload?backUrl=/studies');
  await pickFromTile(page, 'Select Files', files);
  await uploadAndReturnToStudies(page);
  const row = studyRow(page, description);
  await expect(row).toBeVisible({ timeout: 90_000 });
  await row.getByRole('link', { name: 'Get Analysis' }).click();
  await expect(page).toHaveURL(/\/services\/available\?action=getanalysis/);
  const providers = page.getByRole('table', { name: 'Providers of Expert Review' });
  if (!(await providers.isVisible()))
    await page
      .getByRole('row', { name: /Expert Review/ })
      .first()
      .click();
  await providers
    .getByRole('row', { name: new RegExp(provider.name) })
    .getByRole('button', { name: 'Purchase' })
    .click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Confirm Purchase' })).toBeVisible();
  await dialog.getByLabel('Card number').fill('4242 4242 4242 4242');
  await dialog.getByLabel('Expiry').fill('1234');
  await dialog.getByLabel('CVC').fill('123');
  await dialog.getByLabel('Postal code').fill('12345');
  const option = await dialog
    .locator('option')
    .filter({ hasText: description })
    .first()
    .getAttribute('value');
  await dialog.getByLabel('Select study:').selectOption(option!);
  await dialog.getByRole('button', { name: 'Make Payment' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment Completed' })).toBeVisible({ timeout: 20_000 });
  await page.goto('/services/purchased');
  await expect(page.getByRole('row', { name: /Expert Review/ })).toContainText('Pending Provider Approval');
  const studyId = option!;

  // The professional finds it under My Orders, accepts, writes and delivers the report.
  const proPage = pro.page;
  await signIn(proPage, pro.email);
  const nav = proPage.getByRole('navigation', { name: 'Main' });
  const welcome = proPage.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  // A first sign-in is greeted by the onboarding dialog; skipped here.
  await welcome.waitFor({ timeout: 15_000 });
  await welcome.getByRole('button', { name: 'Skip' }).click();
  await expect(welcome).toHaveCount(0);
  await nav.getByRole('link', { name: 'My Orders' }).click();
  await expect(proPage).toHaveURL(/\/professional\/orders$/);
  const order = proPage.getByRole('listitem').filter({ hasText: 'Expert Review' }).first();
  await expect(order).toContainText('Awaiting Your Approval');
  await expect(order).not.toContainText('Fulfil');
  await order.getByRole('button', { name: 'Accept' }).click();
  await expect(order).toContainText('In Progress');
  // My Orders fits a phone: nothing wider than the screen.
  await proPage.setViewportSize({ width: 390, height: 844 });
  await expect.poll(() => horizontalOverflow(proPage)).toBeLessThanOrEqual(0);
  await proPage.screenshot({ path: test.info().outputPath('my-orders-390.png'), fullPage: true });
  await proPage.setViewportSize({ width: 1280, height: 800 });
  await expect(order.getByRole('link', { name: 'Open Study' })).toHaveAttribute(
    'href',
    `/studies/transfer/${studyId}`,
  );
  await order.getByRole('button', { name: 'Write Report' }).click();
  const report = proPage.getByRole('dialog', { name: 'Write Report' });
  await report.getByRole('button', { name: 'Deliver Report' }).click();
  await expect(report.getByText('Findings are required')).toBeVisible();
  await report.getByLabel('Findings').fill('No acute findings. <script>alert(1)</script>');
  await report.getByLabel('Impression').fill('Normal CT.');
  await report.getByLabel('Recommendation (optional)').fill('Routine follow-up.');
  await report.getByRole('button', { name: 'Deliver Report' }).click();
  await expect(report).toHaveCount(0, { timeout: 20_000 });
  await expect(order).toContainText('Completed');

  // The patient: Completed, Latest Completion, counters, and the report as a series in the download.
  await page.goto('/services/purchased');
  await expect(page.getByRole('row', { name: /Expert Review/ })).toContainText('Completed');
  await expect(
    page.getByRole('row', { name: /Expert Review/ }).getByRole('link', { name: 'Open report' }),
  ).toHaveAttribute('href', /\/api\/orders\/.+\/report$/);
  await page.goto('/');
  await expect(page.getByLabel('Completed Analysis: 1')).toBeVisible();
  const download = await page.request.get(`/api/studies/download/${studyId}`);
  expect(download.ok()).toBe(true);
  const zipPath = path.join(dir, 'download.zip');
  writeFileSync(zipPath, await download.body());
  const entries = [...zipEntries(zipPath).values()];
  expect(entries).toHaveLength(4);
  expect(
    entries.some((b) => b.includes(Buffer.from('application/pdf')) && b.includes(Buffer.from('%PDF-'))),
  ).toBe(true);
  const pdf = await page.request.get(`/api/purchases/user/${await userId(page)}`);
  const purchases = (await pdf.json()) as Array<{ id: string; orderStatus: string }>;
  const opened = await page.request.get(`/api/orders/${purchases[0]!.id}/report`);
  expect(opened.headers()['content-type']).toBe('application/pdf');

  // Every tab of the admin console fits a phone too.
  await adminPage.setViewportSize({ width: 390, height: 844 });
  await adminPage.goto('/admin');
  for (const tab of [
    'Users',
    'Audit log',
    'Health',
    'Professionals',
    'Providers',
    'Services',
    'Outbox',
    'Failed jobs',
    'Help articles',
  ]) {
    await adminPage.getByRole('tab', { name: tab }).click();
    await expect(adminPage.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
    await adminPage.waitForLoadState('networkidle');
    await adminPage.screenshot({
      path: test.info().outputPath(`admin-${tab.replace(/ /g, '-').toLowerCase()}-390.png`),
      fullPage: true,
    });
    expect(await horizontalOverflow(adminPage), `Admin → ${tab} at 390 px`).toBeLessThanOrEqual(0);
  }

  await pro.context.close();
  await admin.close();
});

/** How many pixels the page is wider than the window (a phone user would scroll sideways). */
function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

async function userId(page: Page): Promise<string> {
  return ((await (await page.request.get('/api/auth/me')).json()) as { id: string }).id;
}
