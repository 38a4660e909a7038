import path from 'node:path';
import { type BrowserContext, type Page } from '@playwright/test';
import { expect, test } from './a11y';
import { canvasesWithImage } from '../canvas-image';
import {
  fixtures,
  pickFromTile,
  registerPatient,
  uploadGeneratedSeries,
  studyRow,
  uniqueEmail,
  uploadAndReturnToStudies,
} from './study-files';

const viewerBase = () => process.env.E2E_VIEWER_URL!;
/** OHIF puts cornerstone on window. */
type CornerstoneWindow = { cornerstone: { getShouldUseCPURendering(): boolean } };
const appBase = () => process.env.E2E_BASE_URL!;

/** Fails the test on any request to a host other than the app's and the viewer's. */
function onlyOurHosts(context: BrowserContext): string[] {
  const foreign: string[] = [];
  const ours = new Set([new URL(appBase()).host, new URL(viewerBase()).host]);
  context.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:') return;
    if (!ours.has(url.host)) foreign.push(req.url());
  });
  return foreign;
}

interface Drawn {
  width: number;
  height: number;
  /** Bounding box of bright pixels, or null when the canvas is uniform. */
  box: { x0: number; y0: number; x1: number; y1: number } | null;
  bright: number;
  mean: number;
  std: number;
  insideMean: number;
  outsideMean: number;
}

/**
 * Reads the pixels OHIF drew into the first viewport's canvas. Text overlays and tools are DOM and
 * SVG layered above the canvas, so they are not part of what is measured.
 */
async function drawnImage(viewer: Page): Promise<Drawn | null> {
  return viewer.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('canvas.cornerstone-canvas');
    if (!canvas || !canvas.width || !canvas.height) return null;
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const ctx = copy.getContext('2d')!;
    ctx.drawImage(canvas, 0, 0);
    const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let sum = 0;
    let sq = 0;
    let bright = 0;
    let x0 = width,
      y0 = height,
      x1 = -1,
      y1 = -1;
    const lum: number[] = new Array(width * height);
    for (let i = 0; i < width * height; i++) {
      const l = (data[i * 4]! + data[i * 4 + 1]! + data[i * 4 + 2]!) / 3;
      lum[i] = l;
      sum += l;
      sq += l * l;
      if (l > 200) {
        bright++;
        const x = i % width;
        const y = Math.floor(i / width);
        if (x < x0) x0 = x;
        if (y < y0) y0 = y;
        if (x > x1) x1 = x;
        if (y > y1) y1 = y;
      }
    }
    const n = width * height;
    const mean = sum / n;
    const box = x1 >= 0 ? { x0, y0, x1, y1 } : null;
    let inSum = 0,
      inN = 0,
      outSum = 0,
      outN = 0;
    if (box) {
      // Inside: the inner half of the bright box. Outside: a ring just around it.
      const w = box.x1 - box.x0,
        h = box.y1 - box.y0;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const l = lum[y * width + x]!;
          const inner = x > box.x0 + w / 4 && x < box.x1 - w / 4 && y > box.y0 + h / 4 && y < box.y1 - h / 4;
          const ring =
            (x < box.x0 - 3 && x > box.x0 - 20 && y > box.y0 && y < box.y1) ||
            (y < box.y0 - 3 && y > box.y0 - 20 && x > box.x0 && x < box.x1);
          if (inner) {
            inSum += l;
            inN++;
          }
          if (ring) {
            outSum += l;
            outN++;
          }
        }
      }
    }
    return {
      width,
      height,
      box,
      bright,
      mean,
      std: Math.sqrt(Math.max(0, sq / n - mean * mean)),
      insideMean: inN ? inSum / inN : 0,
      outsideMean: outN ? outSum / outN : 255,
    };
  });
}

async function waitForDrawn(viewer: Page, ok: (d: Drawn) => boolean, timeout = 45_000): Promise<Drawn> {
  let last: Drawn | null = null;
  await expect
    .poll(
      async () => {
        last = await drawnImage(viewer);
        return last !== null && ok(last);
      },
      { timeout, intervals: [250, 500, 1000] },
    )
    .toBe(true);
  return last!;
}

/** Registers and closes the first-visit welcome dialog, which would cover the upload page. */
async function signUp(page: Page, tag: string) {
  await registerPatient(page, uniqueEmail(tag));
  const welcome = page.getByRole('dialog', { name: 'Welcome to Medical Imaging' });
  if (await welcome.isVisible({ timeout: 5_000 }).catch(() => false))
    await welcome.getByRole('button', { name: 'Skip' }).click();
  await expect(welcome).toHaveCount(0);
}

/** Opens the study of a My Studies row with View; returns the viewer tab and the study id. */
async function openFromMyStudies(page: Page, rowText: string): Promise<{ viewer: Page; studyId: string }> {
  const row = studyRow(page, rowText);
  await expect(row).toBeVisible({ timeout: 90_000 });
  await row.getByRole('button', { name: 'More actions' }).click();
  const popup = page.waitForEvent('popup');
  await page.getByRole('menuitem', { name: 'View' }).click();
  const viewer = await popup;
  await viewer.waitForURL(/\/studies\/transfer\//, { timeout: 10_000 }).catch(() => undefined);
  const studyId = /\/studies\/transfer\/([^/?#]+)/.exec(viewer.url())?.[1] ?? '';
  await viewer.waitForURL((u) => u.href.startsWith(`${viewerBase()}/viewer`), { timeout: 60_000 });
  return { viewer, studyId };
}

/** Generates a 128×128 series whose slices each carry a known shape, and uploads it from My Studies. */
async function uploadSeries(
  page: Page,
  name: string,
  opts: { count: number; patientName: string; description: string },
) {
  await uploadGeneratedSeries(page, name, { ...opts, size: 128 });
}

test('a generated series opens in OHIF from My Studies, is drawn, scrolls; strangers and deleted studies get nothing', async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const foreign = onlyOurHosts(page.context());
  await signUp(page, 'viewer');

  await uploadSeries(page, 'viewer', {
    count: 12,
    patientName: 'Viewer^Phantom',
    description: 'Viewer phantom',
  });

  // The row shows the study's picture, rendered on the server.
  const thumbnail = studyRow(page, 'Viewer, Phantom').locator('img').first();
  await expect(thumbnail).toHaveAttribute('src', /\/api\/studies\/[^/]+\/thumbnail$/, { timeout: 90_000 });
  await expect
    .poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), {
      timeout: 30_000,
    })
    .toBeGreaterThan(0);
  const thumbResponse = await page.request.get((await thumbnail.getAttribute('src'))!);
  expect(thumbResponse.headers()['content-type']).toBe('image/webp');
  await page.screenshot({ path: test.info().outputPath('my-studies.png') });

  const { viewer, studyId } = await openFromMyStudies(page, 'Viewer, Phantom');
  expect(studyId).not.toBe('');
  // The credential never stays in the address bar.
  expect(viewer.url()).not.toContain('grant=');
  await expect(viewer.locator('canvas.cornerstone-canvas').first()).toBeVisible({ timeout: 60_000 });

  const first = await waitForDrawn(viewer, (d) => d.box !== null && d.bright > 50);
  await viewer
    .locator('.cornerstone-viewport-element, [data-cy="viewport-pane"]')
    .first()
    .screenshot({ path: test.info().outputPath('series-first.png') });
  // The square is drawn: bright inside, dark around it, and it is a square.
  expect(first.insideMean - first.outsideMean).toBeGreaterThan(150);
  const w = first.box!.x1 - first.box!.x0;
  const h = first.box!.y1 - first.box!.y0;
  expect(Math.abs(w - h)).toBeLessThanOrEqual(Math.max(3, w * 0.1));
  expect(first.bright).toBeLessThan(first.width * first.height * 0.5);

  // The series thumbnail in OHIF's study browser is drawn by the server (DICOMweb /thumbnail).
  const seriesThumbnail = viewer.locator('[data-cy="study-browser-thumbnail"] img').first();
  await expect(seriesThumbnail).toHaveAttribute('src', /^blob:/, { timeout: 30_000 });
  await expect
    .poll(() => seriesThumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), {
      timeout: 30_000,
    })
    .toBeGreaterThan(0);

  // Scrolling moves through the slices: the square moves.
  const viewport = viewer.locator('canvas.cornerstone-canvas').first();
  await viewport.hover();
  for (let i = 0; i < 4; i++) {
    await viewer.mouse.wheel(0, 120);
    await viewer.waitForTimeout(150);
  }
  const scrolled = await waitForDrawn(
    viewer,
    (d) => d.box !== null && (d.box.x0 !== first.box!.x0 || d.box.y0 !== first.box!.y0),
  );
  await viewer
    .locator('.cornerstone-viewport-element, [data-cy="viewport-pane"]')
    .first()
    .screenshot({ path: test.info().outputPath('series-scrolled.png') });
  expect(scrolled.insideMean - scrolled.outsideMean).toBeGreaterThan(150);

  // Closing the series panel resizes the viewport; the image drawn on the CPU (as here) is fitted
  // to the new size rather than left out of view (apps/viewer/app-config.js).
  await viewer.locator('[data-cy="side-panel-header-left"] svg').first().click();
  await waitForDrawn(viewer, (d) => d.box !== null && d.bright > 50 && d.width > 1100, 15_000);

  // On a phone the side panels start closed and the image takes the screen's width.
  await viewer.setViewportSize({ width: 390, height: 844 });
  await viewer.reload();
  const onPhone = await waitForDrawn(viewer, (d) => d.box !== null && d.bright > 50 && d.width > 390 * 0.75);
  expect(onPhone.insideMean - onPhone.outsideMean).toBeGreaterThan(150);
  await viewer.screenshot({ path: test.info().outputPath('series-phone.png') });
  // Its header fits the screen: the toolbar scrolls sideways instead of running under the menus.
  expect(await viewer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const patientMenu = await viewer.getByText('Patient', { exact: true }).boundingBox();
  const lastTool = await viewer.locator('[data-cy="MoreTools-split-button-secondary"]').boundingBox();
  const toolbarEdge = await viewer.evaluate(
    () =>
      document
        .querySelector('[data-cy="MoreTools-split-button-secondary"]')!
        .closest('.absolute')!
        .getBoundingClientRect().right,
  );
  expect(patientMenu && lastTool).toBeTruthy();
  expect(toolbarEdge).toBeLessThanOrEqual(patientMenu!.x);
  // Back to a wide window: the viewport grows under the drawn image, which is fitted to it again.
  await viewer.setViewportSize({ width: 1280, height: 720 });
  await waitForDrawn(viewer, (d) => d.box !== null && d.bright > 50 && d.width > 1000, 15_000);
  const viewerLink = viewer.url();

  // A second user cannot open the first user's study, nor reuse its viewer link.
  const other = await browser.newContext({ baseURL: appBase() });
  const otherForeign = onlyOurHosts(other);
  const otherPage = await other.newPage();
  await signUp(otherPage, 'stranger');
  await otherPage.goto(`/studies/transfer/${studyId}`);
  await expect(otherPage.getByText('Study not found.')).toBeVisible({ timeout: 20_000 });
  const viaApi = await otherPage.request.get(`/api/dicom/viewer/${studyId}`);
  expect(viaApi.status()).toBe(404);
  await otherPage.goto(viewerLink);
  await expect(otherPage.getByRole('alert').filter({ hasText: 'This viewer link has expired' })).toBeVisible({
    timeout: 20_000,
  });
  expect(await drawnImage(otherPage).then((d) => d?.box ?? null)).toBeNull();
  await other.close();

  // Deleting the study ends the viewer credential.
  const row = studyRow(page, 'Viewer, Phantom');
  await row.getByRole('button', { name: 'Delete study' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(row).toHaveCount(0, { timeout: 20_000 });
  await viewer.reload();
  await expect(viewer.getByRole('alert').filter({ hasText: 'This viewer link has expired' })).toBeVisible({
    timeout: 20_000,
  });

  expect(foreign).toEqual([]);
  expect(otherForeign).toEqual([]);
});

test("a study opens in OHIF from the Dashboard's View Study, is drawn, and opens in MPR", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const foreign = onlyOurHosts(page.context());
  await signUp(page, 'viewer-dashboard');
  await uploadSeries(page, 'viewer-dashboard', {
    count: 6,
    patientName: 'Dashboard^Phantom',
    description: 'Dashboard phantom',
  });
  await expect(studyRow(page, 'Dashboard, Phantom')).toBeVisible({ timeout: 90_000 });

  await page.goto('/');
  const card = page
    .getByRole('list', { name: 'Studies' })
    .getByRole('listitem')
    .filter({ hasText: 'Dashboard phantom' });
  await expect(card).toBeVisible({ timeout: 30_000 });
  // 'View Study' opens the preparation page in a new tab, which then opens the viewer.
  const opened = page.context().waitForEvent('page');
  await card.getByRole('link', { name: 'View Study' }).click();
  const viewer = await opened;
  await viewer.waitForURL((u) => u.href.startsWith(`${viewerBase()}/viewer`), { timeout: 60_000 });
  expect(viewer.url()).not.toContain('grant=');
  await expect(viewer.locator('canvas.cornerstone-canvas').first()).toBeVisible({ timeout: 60_000 });

  const drawn = await waitForDrawn(viewer, (d) => d.box !== null && d.bright > 50);
  await viewer
    .locator('.cornerstone-viewport-element, [data-cy="viewport-pane"]')
    .first()
    .screenshot({ path: test.info().outputPath('dashboard-series.png') });
  // The first slice's square: bright inside, dark around it.
  expect(drawn.insideMean - drawn.outsideMean).toBeGreaterThan(150);

  // This browser only emulates WebGL in software, so stacks are drawn on the CPU; MPR needs WebGL,
  // and choosing it reloads the viewer in WebGL mode with that layout, which draws all three planes.
  expect(
    await viewer.evaluate(() =>
      (window as unknown as CornerstoneWindow).cornerstone.getShouldUseCPURendering(),
    ),
  ).toBe(true);
  await viewer.locator('[data-cy="Layout"]').first().click();
  await viewer.getByText('MPR', { exact: true }).first().click();
  await viewer.waitForURL(/hangingprotocolid=mpr/, { timeout: 30_000 });
  expect(viewer.url()).not.toContain('grant=');
  await expect.poll(() => viewer.evaluate(canvasesWithImage), { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
  expect(
    await viewer.evaluate(() =>
      (window as unknown as CornerstoneWindow).cornerstone.getShouldUseCPURendering(),
    ),
  ).toBe(false);
  await viewer.screenshot({ path: test.info().outputPath('dashboard-mpr.png') });
  expect(foreign).toEqual([]);
});

for (const [label, file, rowText] of [
  ['JPEG baseline', 'SC_rgb_jpeg_dcmtk.dcm', null],
  ['JPEG 2000', 'JPEG2000.dcm', null],
] as const) {
  test(`a ${label} fixture opens in OHIF and is drawn`, async ({ page }) => {
    test.setTimeout(180_000);
    const foreign = onlyOurHosts(page.context());
    await signUp(page, 'viewer-fixture');
    await page.goto('/upload?backUrl=/studies');
    await pickFromTile(page, 'Select Files', [path.join(fixtures, file)]);
    await uploadAndReturnToStudies(page);
    const row = page.getByRole('row').nth(1);
    await expect(row).toBeVisible({ timeout: 90_000 });
    const { viewer } = await openFromMyStudies(
      page,
      rowText ?? (await row.getByRole('cell').nth(2).innerText()),
    );
    await expect(viewer.locator('canvas.cornerstone-canvas').first()).toBeVisible({ timeout: 60_000 });
    // Not a blank or uniform canvas: the decoded image has structure.
    const drawn = await waitForDrawn(viewer, (d) => d.std > 8 && d.mean > 2);
    await viewer
      .locator('.cornerstone-viewport-element, [data-cy="viewport-pane"]')
      .first()
      .screenshot({ path: test.info().outputPath(`${file}.png`) });
    expect(drawn.std).toBeGreaterThan(8);
    expect(foreign).toEqual([]);
  });
}
