/**
 * Compares variants of our viewer on one machine, interleaved so that load and noise fall on all
 * of them alike: each variant is a copy of OHIF and an app-config.js, served by a viewer origin of
 * its own over the same app and the same prepared study. Prints, per variant, the median time to
 * the first image cold (new browser profile) and warm (reload), and DOMContentLoaded.
 *
 *   VARIANTS='now=apps/viewer/ohif,other=/tmp/ohif-copy:/tmp/app-config.js' npx tsx bench/viewer/compare.ts
 *
 * COMPARE_RUNS=12 rounds (one more first, not counted), BENCH_SLICES=120. A variant without a
 * config uses apps/viewer/app-config.js. Single cold loads vary by ±15 % here: compare medians of
 * 12 rounds or more.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { buildViewerApp } from '../../apps/server/src/modules/viewer/viewer-app';
import { freePort } from '../../apps/server/test/helpers/orthanc';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium';
import { viewportHasImage } from './first-image';
import { preparedStudy, startViewerOrigin } from './prepared-study';
import { median } from '../median';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const variants = (process.env.VARIANTS ?? '').split(',').map((spec) => {
  const [name, paths] = spec.split('=');
  const [dir, config] = (paths ?? '').split(':');
  if (!name || !dir) throw new Error("VARIANTS='name=ohifDir[:appConfig],…'");
  return {
    name,
    ohifDir: path.resolve(root, dir),
    appConfigFile: path.resolve(root, config || 'apps/viewer/app-config.js'),
  };
});
const runs = Number(process.env.COMPARE_RUNS ?? 12);

// The first variant is served by the app's own viewer origin; each other one by an origin of its own.
const { ctx, viewerApp } = await startViewerOrigin(variants[0]!);
const origins: Array<{ name: string; port: number; close: () => Promise<unknown> }> = [
  {
    name: variants[0]!.name,
    port: Number(new URL(ctx.services.config.viewerPublicUrl).port),
    close: async () => {},
  },
];
for (const v of variants.slice(1)) {
  const app = await buildViewerApp(ctx.services, { ...v, logRequests: false });
  const port = await freePort();
  await app.listen({ port, host: '127.0.0.1' });
  origins.push({ name: v.name, port, close: () => app.close() });
}
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const results = new Map(
  origins.map((o) => [o.name, { cold: [] as number[], warm: [] as number[], dcl: [] as number[] }]),
);
try {
  const { studyId, auth } = await preparedStudy(
    ctx,
    'compare@example.com',
    Number(process.env.BENCH_SLICES ?? 120),
  );
  const firstImage = async (page: import('@playwright/test').Page, go: () => Promise<unknown>) => {
    const t = Date.now();
    await go();
    await page.waitForFunction(viewportHasImage, undefined, { polling: 20, timeout: 60_000 });
    return Date.now() - t;
  };
  for (let round = -1; round < runs; round++) {
    for (const o of round % 2 ? [...origins].reverse() : origins) {
      // The link names our configured viewer origin; each variant answers on its own port.
      const link = (await ctx.app.inject({ url: `/api/dicom/viewer/${studyId}`, headers: auth })).json()
        .url as string;
      const url = link.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${o.port}`);
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.on('pageerror', (e) => console.log(`${o.name}: ${e.message}`));
      const cold = await firstImage(page, () => page.goto(url, { waitUntil: 'commit' }));
      const dcl = await page.evaluate(
        () =>
          (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming)
            .domContentLoadedEventEnd,
      );
      const warm = await firstImage(page, () => page.reload({ waitUntil: 'commit' }));
      await context.close();
      if (round < 0) continue;
      const r = results.get(o.name)!;
      r.cold.push(cold);
      r.warm.push(warm);
      r.dcl.push(Math.round(dcl));
    }
  }
  console.log(`| median of ${runs} | cold | warm | DOMContentLoaded |\n| --- | ---: | ---: | ---: |`);
  for (const [name, r] of results)
    console.log(`| ${name} | ${median(r.cold)} ms | ${median(r.warm)} ms | ${median(r.dcl)} ms |`);
  for (const [name, r] of results) console.log(`${name}: cold ${r.cold.join(' ')}; warm ${r.warm.join(' ')}`);
} finally {
  await browser.close();
  for (const o of origins) await o.close();
  await viewerApp.close();
  await ctx.close();
}
