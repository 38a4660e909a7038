import { deflateSync } from 'node:zlib';
import { type Browser, type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { registerPatient, uniqueEmail } from './study-files';

const appBase = () => process.env.E2E_BASE_URL!;

/** A signed-in admin in a context of its own. */
async function adminPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: appBase() });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Email').fill(process.env.E2E_ADMIN_EMAIL!);
  await page.getByLabel('Password', { exact: true }).fill(process.env.E2E_ADMIN_PASSWORD!);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Medical Imaging v3.0')).toBeVisible();
  return page;
}

/** A small solid-colour PNG, written by hand so the test needs no image library. */
function png(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x4a)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test('a user browses categories and pages, searches, opens an article and goes back', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await registerPatient(page, uniqueEmail('help'));
  // The user menu leads to the help centre.
  await page.getByRole('button', { name: /user menu/i }).click();
  await page.getByRole('menuitem', { name: 'Help' }).click();
  await expect(page).toHaveURL(/\/help$/);
  await expect(page.getByRole('heading', { name: 'Help Center', level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Return to Home' })).toBeVisible();

  // Featured is the default tab; every card there carries the badge.
  const sidebar = page.getByRole('complementary', { name: 'Help categories' });
  await expect(sidebar.getByRole('button', { name: /^Featured/ })).toHaveAttribute('aria-current', 'page');
  const cards = page.getByRole('list', { name: 'Articles' }).getByRole('listitem');
  await expect(cards.first()).toBeVisible();
  const featuredCount = Number(
    await sidebar
      .getByRole('button', { name: /^Featured/ })
      .locator('span')
      .last()
      .innerText(),
  );
  await expect(cards).toHaveCount(Math.min(featuredCount, 6));
  for (const card of await cards.all())
    await expect(card.getByText('Featured', { exact: true })).toBeVisible();
  await expect(cards.first().getByText(/^Updated [A-Z][a-z]{2} \d{2}, \d{4}$/)).toBeVisible();

  // All Articles pages by six.
  const allButton = sidebar.getByRole('button', { name: /^All Articles/ });
  const total = Number(await allButton.locator('span').last().innerText());
  expect(total).toBeGreaterThanOrEqual(14);
  await allButton.click();
  await expect(page.getByRole('heading', { name: 'All Articles' })).toBeVisible();
  await expect(cards).toHaveCount(6);
  const firstOnPage1 = await cards.first().getByRole('heading').innerText();
  const pagination = page.getByRole('navigation', { name: 'Pagination' });
  await pagination.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/page=2/);
  await expect(pagination.getByRole('button', { name: 'Page 2' })).toHaveAttribute('aria-current', 'page');
  await expect(cards.first().getByRole('heading')).not.toHaveText(firstOnPage1);
  const lastPage = Math.ceil(total / 6);
  await pagination.getByRole('button', { name: `Page ${lastPage}` }).click();
  await expect(cards).toHaveCount(total - (lastPage - 1) * 6);
  await expect(pagination.getByRole('button', { name: 'Next' })).toBeDisabled();

  // A category shows its own articles, as many as its count says.
  const category = sidebar.getByRole('button', { name: /^Sharing & Providers/ });
  const inCategory = Number(await category.locator('span').last().innerText());
  await category.click();
  await expect(page.getByRole('heading', { name: 'Sharing & Providers', level: 2 })).toBeVisible();
  await expect(cards).toHaveCount(Math.min(inCategory, 6));
  for (const card of await cards.all()) await expect(card.getByText('Sharing & Providers')).toBeVisible();

  // Search looks through titles and bodies.
  await page.getByRole('searchbox', { name: 'Search help articles' }).fill('recovery codes');
  await expect(page.getByRole('heading', { name: 'Search results for "recovery codes"' })).toBeVisible();
  await expect(cards.first().getByRole('heading')).toHaveText('Two-factor sign-in and recovery codes');
  await page.getByRole('searchbox', { name: 'Search help articles' }).fill('qwertyzxcv');
  await expect(page.getByText('No articles found')).toBeVisible();
  await expect(page.getByText('No articles match "qwertyzxcv". Try other words.')).toBeVisible();

  // Open an article from a list page and come back to the same page.
  await allButton.click();
  await pagination.getByRole('button', { name: 'Page 2' }).click();
  // Page 2's cards, not page 1's still on screen.
  await expect(pagination.getByRole('button', { name: 'Page 2' })).toHaveAttribute('aria-current', 'page');
  await expect(page).toHaveURL(/page=2/);
  const card = cards.first();
  const title = await card.getByRole('heading').innerText();
  await card.getByRole('link', { name: `Read more: ${title}` }).click();
  await expect(page.getByRole('heading', { name: title, level: 1 })).toBeVisible();
  await expect(page.getByTestId('article-content')).not.toBeEmpty();
  await page.getByRole('link', { name: 'Back to Help Center' }).click();
  await expect(page).toHaveURL(/tab=all.*page=2|page=2.*tab=all/);
  await expect(cards.first().getByRole('heading')).toHaveText(title);

  // An article with a screenshot shows it.
  await page.getByRole('searchbox', { name: 'Search help articles' }).fill('dicomdir');
  await page.getByRole('link', { name: 'Read more: Uploading from a CD or DVD' }).click();
  await expect(page.getByRole('heading', { name: 'Uploading from a CD or DVD', level: 1 })).toBeVisible();
  await page.goto('/help?tab=all');
  await page.getByRole('searchbox', { name: 'Search help articles' }).fill('four ways to upload');
  await page.getByRole('link', { name: /^Read more: Uploading a study from files/ }).click();
  const shot = page.getByTestId('article-content').getByRole('img').first();
  await expect(shot).toBeVisible();
  // Visible is not loaded: wait for the picture itself.
  await expect.poll(() => shot.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);

  // Return to Home leaves the help centre.
  await page.getByRole('link', { name: 'Return to Home' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test("a missing article shows 'Article Not Found', and an empty category says so", async ({ page }) => {
  await registerPatient(page, uniqueEmail('help-missing'));
  await page.goto('/help/00000000-0000-4000-8000-000000000000');
  await expect(page.getByRole('heading', { name: 'Article Not Found' })).toBeVisible();
  await expect(
    page.getByText("The article you're looking for doesn't exist or has been removed."),
  ).toBeVisible();
  await page.getByRole('link', { name: 'Back to Help Center' }).click();
  await expect(page).toHaveURL(/\/help$/);
  await page.goto(`/help?tab=${encodeURIComponent('Nothing Here')}`);
  await expect(page.getByText('No articles found in the "Nothing Here" category.')).toBeVisible();
});

test('the help centre is for signed-in users only', async ({ page }) => {
  await page.goto('/help');
  await expect(page.getByRole('button', { name: 'Sign In' })).toBeVisible();
  expect((await page.request.get('/api/kb')).status()).toBe(401);
});

test('an admin writes and publishes an article with an image; users see it, and pasted markup stays inert', async ({
  browser,
  page,
}) => {
  const admin = await adminPage(browser);
  const title = `Reading your report ${Date.now()}`;
  await admin.goto('/admin');
  await admin.getByRole('tab', { name: 'Help articles' }).click();
  await admin.getByRole('button', { name: 'New article' }).click();
  await admin.getByLabel('Title').fill(title);
  await admin.getByLabel('Description').fill('Where the findings are, and what the words mean.');
  await admin.getByLabel('Category').fill('Viewing & Downloading');
  const editor = admin.getByRole('textbox', { name: 'Content' });
  await editor.click();
  await admin.keyboard.type('Open the study and look at the findings.');

  // An uploaded picture goes into the article.
  await admin
    .getByLabel('Image file')
    .setInputFiles({ name: 'report.png', mimeType: 'image/png', buffer: png(320, 200) });
  const inserted = editor.locator('img[src^="/api/kb/images/"]');
  await expect(inserted).toHaveCount(1);
  const src = await inserted.getAttribute('src');

  // Markup pasted from elsewhere loses its handlers in the editor.
  await editor.evaluate((el, imageSrc) => {
    const data = new DataTransfer();
    data.setData(
      'text/html',
      `<p>Pasted</p><img src="${imageSrc}" onerror="window.__pwned = 1"><img src="x" onerror="window.__pwned = 2"><a href="javascript:window.__pwned = 3">click</a>`,
    );
    data.setData('text/plain', 'Pasted');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, src);
  await expect(editor.getByText('Pasted')).toBeVisible();
  expect(await editor.locator('[onerror]').count()).toBe(0);

  // Pasted pictures come without a description; the editor says so until each one is described.
  const undescribed = admin.getByRole('status').filter({ hasText: /no description/ });
  await expect(undescribed).toBeVisible();
  admin.on('dialog', (dialog) => void dialog.accept('The findings section of a report'));
  for (const image of await editor.locator('img:not([alt]), img[alt=""]').all()) {
    await image.click();
    await admin.getByRole('button', { name: 'Describe image' }).click();
  }
  await expect(undescribed).toHaveCount(0);

  // Preview shows it as readers will see it.
  await admin.getByRole('button', { name: 'Preview' }).click();
  await expect(admin.getByTestId('article-preview').getByRole('heading', { name: title })).toBeVisible();
  await admin.getByRole('button', { name: 'Edit' }).click();
  await admin.getByText('Published', { exact: true }).click();
  await admin.getByRole('button', { name: 'Save article' }).click();
  await expect(admin.getByText('Article created').first()).toBeVisible();
  const row = admin.getByRole('list', { name: 'Help articles' }).getByRole('listitem', { name: title });
  await expect(row.getByText('Published', { exact: true })).toBeVisible();
  await row.getByRole('button', { name: `Feature ${title}` }).click();
  await expect(row.getByText('Featured', { exact: true })).toBeVisible();

  // A script, an event handler and a javascript: link sent straight to the API never reach a page.
  const raw = await admin.request.post('/api/admin/kb', {
    headers: { origin: appBase() },
    data: {
      title: `Hostile ${title}`,
      description: 'Sent around the editor.',
      category: 'Viewing & Downloading',
      featured: false,
      published: true,
      content: `<p>Hostile<script>window.__pwned = 4</script></p><img src="${src}" onerror="window.__pwned = 5"><a href="javascript:window.__pwned = 6">link</a>`,
    },
  });
  expect(raw.status()).toBe(201);
  const hostileId = (await raw.json()).data._id as string;

  // A user finds both and nothing runs.
  await registerPatient(page, uniqueEmail('help-reader'));
  await page.goto('/help');
  await page.getByRole('searchbox', { name: 'Search help articles' }).fill(title);
  await page.getByRole('link', { name: `Read more: ${title}` }).click();
  const content = page.getByTestId('article-content');
  await expect(content).toContainText('Open the study and look at the findings.');
  const picture = content.locator(`img[src="${src}"]`).first();
  await expect(picture).toBeVisible();
  expect(await picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(320);
  expect(await content.locator('[onerror], script').count()).toBe(0);
  expect(await content.locator('img[src="x"]').count()).toBe(0);

  await page.goto(`/help/${hostileId}`);
  await expect(page.getByTestId('article-content')).toContainText('Hostile');
  const hostile = page.getByTestId('article-content');
  expect(await hostile.locator('script, [onerror], a[href^="javascript"]').count()).toBe(0);
  await hostile.getByText('link').click();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  // Unpublished, it is gone for users.
  await admin.reload();
  await admin.getByRole('tab', { name: 'Help articles' }).click();
  await admin
    .getByRole('list', { name: 'Help articles' })
    .getByRole('listitem', { name: title })
    .getByRole('button', { name: `Unpublish ${title}` })
    .click();
  await expect(admin.getByText('Article unpublished').first()).toBeVisible();
  const listed = await page.request.get(`/api/kb?q=${encodeURIComponent(title)}`);
  expect((await listed.json()).data.map((a: { title: string }) => a.title)).not.toContain(title);
  await admin.context().close();
});
